/**
 * Where Idempotency-Key records live, shared by every process that serves the API: a key's first
 * request reserves it, its successful response is stored, and later requests with the same key
 * are answered from the record (interceptor: idempotency.interceptor.ts).
 */
export interface IdempotencyStore {
  /**
   * Atomically looks the key up and, when it is free (never used, expired, or reserved by a
   * holder whose lease ran out), reserves it for `holder`.
   */
  begin(request: BeginRequest): Promise<BeginOutcome>;
  /** Stores the response of the reservation `holder` still holds; false when it no longer does. */
  complete(key: IdempotencyKeyRef, holder: string, response: StoredResponse): Promise<boolean>;
  /** Gives up the reservation (no response to keep): the next request with the key runs afresh. */
  release(key: IdempotencyKeyRef, holder: string): Promise<void>;
  /** Deletes the expired records; how many went. */
  purgeExpired(): Promise<number>;
  /** Finishes the writes under way; the store's connection may be closed afterwards. */
  close(): Promise<void>;
}

export interface IdempotencyKeyRef {
  /** Whose key it is: the organization of the API key that sent it. */
  readonly scope: string;
  /** The key as stored (the HTTP layer stores a digest of the header's value). */
  readonly key: string;
}

export interface BeginRequest extends IdempotencyKeyRef {
  /** What the request was (method, route, body); a different one with the same key is refused. */
  readonly fingerprint: string;
  /** This request's own id, so that only it completes or releases its reservation. */
  readonly holder: string;
  /** How long the reservation holds without a response before another request may take over. */
  readonly leaseMs: number;
  /** How long the record is kept, from the reservation. */
  readonly retentionMs: number;
}

export interface StoredResponse {
  readonly status: number;
  /** The JSON body as sent, or null when there was none. */
  readonly body: string | null;
}

export type BeginOutcome =
  | { readonly outcome: 'reserved' }
  | { readonly outcome: 'replay'; readonly response: StoredResponse }
  | { readonly outcome: 'in-progress' }
  | { readonly outcome: 'mismatch' };

export const IDEMPOTENCY_STORE = Symbol('IdempotencyStore');

/** Scopes, keys, fingerprints and holders are built by the HTTP layer: printable, bounded text. */
const PART = /^[\x21-\x7e]{1,255}$/;

export function checkedRef<T extends IdempotencyKeyRef>(ref: T): T {
  if (!PART.test(ref.scope) || !PART.test(ref.key)) throw new Error('Invalid idempotency key reference');
  return ref;
}

export function checkedBegin(request: BeginRequest): BeginRequest {
  checkedRef(request);
  if (!PART.test(request.fingerprint) || !PART.test(request.holder)) throw new Error('Invalid idempotency fingerprint or holder');
  if (!(request.leaseMs >= 1) || !(request.retentionMs >= 1)) throw new RangeError('Idempotency lease and retention must be positive');
  return request;
}
