import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.gen';

/** Types of the console API, generated from the OpenAPI document at build time. */
export type Schemas = components['schemas'];

/** A failed console API call, in words a moderator can act on (the error body, docs/api.md, "Errors"). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string | undefined,
    readonly pointer: string | undefined,
  ) {
    super(message);
  }
}

/** Sent on every mutating request; set by sign-in and by reading /me (after an SSO sign-in). */
let csrfToken: string | null = null;
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const csrf: Middleware = {
  onRequest({ request }) {
    if (csrfToken && MUTATING.has(request.method)) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(csrf);

interface ErrorBody {
  errors?: Array<{ status?: number; title?: string; detail?: string; pointer?: string; type?: string[] }>;
}

/** One problem of an error body (docs/api.md, "Errors") as a sentence: "Title: detail (field /x)". */
const sentence = (e: NonNullable<ErrorBody['errors']>[number]) =>
  `${e.title ?? 'Error'}${e.detail ? `: ${e.detail}` : ''}${e.pointer ? ` (field ${e.pointer})` : ''}`;

/** Turns the error body (docs/api.md, "Errors") into words: every problem it lists, the first one's pointer kept for the form. */
export function describeError(status: number, body: unknown): ApiError {
  const errors = (body as ErrorBody | undefined)?.errors ?? [];
  const first = errors[0];
  if (!first) return new ApiError(status, `The server answered ${status}`, undefined, undefined);
  return new ApiError(status, errors.map(sentence).join(' · '), first.type?.[0], first.pointer);
}

/**
 * Unwraps an openapi-fetch result: the data, or an ApiError with the server's words.
 * A 204 gives `undefined`, which callers treat as "nothing".
 */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result;
  try {
    result = await call;
  } catch {
    throw new ApiError(0, 'The server cannot be reached; check the connection and try again', undefined, undefined);
  }
  if (result.error !== undefined || !result.response.ok) {
    const error = describeError(result.response.status, result.error);
    if (error.type === RECENT_SIGN_IN_REQUIRED) window.dispatchEvent(new Event(RECENT_SIGN_IN_REQUIRED_EVENT));
    throw error;
  }
  return result.data as T;
}

/** The server's answer to a change that needs a sign-in of the last minutes (docs/console-access.md, "Recent sign-in"). */
export const RECENT_SIGN_IN_REQUIRED = '/errors/recent-sign-in-required';
/** Told to the layout, which offers to sign in again whatever page made the change. */
export const RECENT_SIGN_IN_REQUIRED_EVENT = 'warden:recent-sign-in-required';
