/**
 * The one error type of the domain. Every failure that reaches a client is a DomainError with a
 * stable `type` id; the HTTP layer maps it to the error body (docs/api.md, "Errors").
 */
export interface ErrorDetail {
  readonly title: string;
  readonly detail?: string;
  /** JSON pointer (RFC 6901) to the offending field of the request. */
  readonly pointer?: string;
}

export type ErrorKind =
  | 'invalid-user-input'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'concurrent-update-conflict'
  | 'conflict'
  | 'payload-too-large'
  | 'request-header-fields-too-large'
  | 'request-timeout'
  | 'unsupported-media-type'
  | 'rate-limited'
  | 'unavailable'
  | 'internal'
  | 'idempotency-key-reused'
  | 'idempotency-key-in-progress'
  | 'second-factor-required'
  | 'recent-sign-in-required'
  | 'lock-not-held'
  | 'lock-expired'
  | 'job-closed'
  | 'job-locked';

const STATUS: Record<ErrorKind, number> = {
  'invalid-user-input': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  'method-not-allowed': 405,
  'concurrent-update-conflict': 409,
  conflict: 409,
  'payload-too-large': 413,
  // Answered by the HTTP server before any request exists (platform's client-error-answer.ts).
  'request-header-fields-too-large': 431,
  'request-timeout': 408,
  'unsupported-media-type': 415,
  'rate-limited': 429,
  internal: 500,
  unavailable: 503,
  'idempotency-key-reused': 422,
  'idempotency-key-in-progress': 409,
  'second-factor-required': 401,
  'recent-sign-in-required': 403,
  // Review jobs (the exclusive moderator lock): each refusal has its own type, so a console can say why.
  'lock-not-held': 409,
  'lock-expired': 409,
  'job-closed': 409,
  'job-locked': 409,
};

export class DomainError extends Error {
  readonly status: number;
  readonly type: string;

  constructor(
    readonly kind: ErrorKind,
    readonly details: readonly ErrorDetail[],
    /** Extra response headers, e.g. Retry-After for 429. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(details.map((d) => d.title + (d.detail ? `: ${d.detail}` : '')).join('; '));
    this.name = 'DomainError';
    this.status = STATUS[kind];
    this.type = `/errors/${kind}`;
  }
}

export const invalidInput = (...details: ErrorDetail[]) => new DomainError('invalid-user-input', details);

export const invalidField = (pointer: string, detail: string) => invalidInput({ title: 'Invalid request', detail, pointer });

export const unauthorized = (detail: string) => new DomainError('unauthorized', [{ title: 'Unauthorized', detail }]);

export const forbidden = (detail: string) => new DomainError('forbidden', [{ title: 'Forbidden', detail }]);

export const notFound = (detail: string) => new DomainError('not-found', [{ title: 'Not found', detail }]);

export const methodNotAllowed = (detail: string, allow: string[]) =>
  new DomainError('method-not-allowed', [{ title: 'Method not allowed', detail }], { Allow: allow.join(', ') });

export const concurrentUpdateConflict = (detail: string) => new DomainError('concurrent-update-conflict', [{ title: 'Concurrent update conflict', detail }]);

/** A conflict the write path reports when the stream moved under a command (not a decider's refusal). */
export const isConcurrentUpdateConflict = (error: unknown): error is DomainError => error instanceof DomainError && error.kind === 'concurrent-update-conflict';

export const conflict = (detail: string) => new DomainError('conflict', [{ title: 'Conflict', detail }]);

export const payloadTooLarge = (limitBytes: number) =>
  new DomainError('payload-too-large', [{ title: 'Payload too large', detail: `The request body exceeds the limit of ${limitBytes} bytes` }]);

export const unsupportedMediaType = (detail: string) => new DomainError('unsupported-media-type', [{ title: 'Unsupported media type', detail }]);

/** `what` says which limit was reached when it is not the request rate (e.g. failed sign-ins). */
export const rateLimited = (retryAfterSeconds: number, what = 'Rate limit exceeded') =>
  new DomainError('rate-limited', [{ title: 'Too many requests', detail: `${what}; retry after ${retryAfterSeconds} s` }], {
    'Retry-After': String(retryAfterSeconds),
  });

export const unavailable = (detail: string) => new DomainError('unavailable', [{ title: 'Service unavailable', detail }]);

export const internalError = () => new DomainError('internal', [{ title: 'Internal server error', detail: 'An unexpected error occurred' }]);

/** The Idempotency-Key came with another request (body or endpoint) than the one it was first used for. */
export const idempotencyKeyReused = () =>
  new DomainError('idempotency-key-reused', [
    {
      title: 'Idempotency key reused',
      detail: 'This Idempotency-Key was already used for a different request (another body or endpoint); send a new key with a new request',
      pointer: '/headers/idempotency-key',
    },
  ]);

/** The first request with this Idempotency-Key has not answered yet. */
export const idempotencyKeyInProgress = (retryAfterSeconds: number) =>
  new DomainError(
    'idempotency-key-in-progress',
    [
      {
        title: 'Request in progress',
        detail: `A request with this Idempotency-Key is still being processed; retry after ${retryAfterSeconds} s to get its response`,
        pointer: '/headers/idempotency-key',
      },
    ],
    { 'Retry-After': String(retryAfterSeconds) },
  );
/** A part of a request over its own limit (a string, an item): 413 with a pointer to each. */
export const partTooLarge = (...details: ErrorDetail[]) => new DomainError('payload-too-large', details);

/**
 * The password was right and the account has a second factor: the login must be sent again with
 * `totp` (or `recoveryCode`). A type of its own, so a client knows to ask for the code.
 */
export const secondFactorRequired = () =>
  new DomainError('second-factor-required', [
    {
      title: 'Second factor required',
      detail: 'This account has a second factor: send the current code of the authenticator app as totp (or a recovery code as recoveryCode)',
      pointer: '/totp',
    },
  ]);

/** One entry of the error body (docs/api.md, "Errors"). */
export interface ErrorBodyItem {
  status: number;
  type: string[];
  title: string;
  detail?: string;
  pointer?: string;
  requestId?: string;
}

/**
 * The most problems one error body lists. Without a bound a small body answers a large one (an
 * array of 8,000 bad values is 16 KB and gives 8,000 entries, 1.5 MB), and a topic message's
 * dead letter outgrows what the broker takes, so the message would come back for ever.
 */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * The one error body (docs/api.md, "Errors"), for a DomainError: what HTTP answers (the
 * platform's error filter) and what a dead-lettered topic message carries (docs/inbound-topic.md).
 * The first MAX_LISTED_PROBLEMS problems, in the order found, then one entry saying how many more.
 */
export function errorBodyOf(error: DomainError, requestId: string | undefined): { errors: ErrorBodyItem[] } {
  const entry = (d: ErrorDetail): ErrorBodyItem => ({
    status: error.status,
    type: [error.type],
    title: d.title,
    ...(d.detail !== undefined ? { detail: d.detail } : {}),
    ...(d.pointer !== undefined ? { pointer: d.pointer } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
  });
  const more = error.details.length - MAX_LISTED_PROBLEMS;
  if (more <= 0) return { errors: error.details.map(entry) };
  return {
    errors: [
      ...error.details.slice(0, MAX_LISTED_PROBLEMS).map(entry),
      // Pointing at the whole body (""): the rest are somewhere in it.
      entry({ title: 'More problems', detail: `${more} more problem${more === 1 ? '' : 's'} not listed: correct the ones above and send again`, pointer: '' }),
    ],
  };
}

/**
 * The session is signed in, but not recently enough for a change that could take the organization
 * over: a type of its own, so that the console offers to sign in again (docs/console-access.md,
 * "Recent sign-in").
 */
export const recentSignInRequired = (minutes: string) =>
  new DomainError('recent-sign-in-required', [
    {
      title: 'Recent sign-in required',
      detail: `This change needs a sign-in of the last ${minutes}: sign out and sign in again, then repeat it`,
    },
  ]);
