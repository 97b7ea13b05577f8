import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.gen';

/** Types of the console API, generated from the OpenAPI document at build time. */
export type Schemas = components['schemas'];

/** A failed console API call, in words a moderator can act on (spec section 7 body). */
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

/** Turns the section 7 body into one sentence: "Title: detail (field /x)". */
export function describeError(status: number, body: unknown): ApiError {
  const first = (body as ErrorBody | undefined)?.errors?.[0];
  if (!first) return new ApiError(status, `The server answered ${status}`, undefined, undefined);
  const where = first.pointer ? ` (field ${first.pointer})` : '';
  const text = first.detail ? `${first.title ?? 'Error'}: ${first.detail}${where}` : `${first.title ?? 'Error'}${where}`;
  return new ApiError(status, text, first.type?.[0], first.pointer);
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
  if (result.error !== undefined || !result.response.ok) throw describeError(result.response.status, result.error);
  return result.data as T;
}
