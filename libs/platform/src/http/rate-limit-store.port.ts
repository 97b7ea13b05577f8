/**
 * Where the per-key token buckets of the API's rate limit live. A bucket holds `burst` tokens
 * and refills at `ratePerSecond`; a request takes one, or more for a large body (requestCost).
 */
export interface RateLimitStore {
  /**
   * Takes `tokens` (1 by default; at most the burst, whole) from `key`'s bucket, all or none: 0 when
   * the request may go ahead, else the whole seconds to wait until that many are there (at least 1).
   */
  take(key: string, tokens?: number): Promise<number>;
  /** Whether instances that open this store against the same backend share one bucket per key. */
  readonly sharedAcrossInstances: boolean;
}

export interface RateLimit {
  readonly ratePerSecond: number;
  readonly burst: number;
}

/** Seconds until a bucket holding `tokens` (fewer than `needed`) holds `needed` (one by default) again. */
export function secondsUntilToken(tokens: number, ratePerSecond: number, needed = 1): number {
  return Math.max(1, Math.ceil((needed - tokens) / ratePerSecond));
}

/** Tokens a take may ask for: a whole number from 1 to the burst (a cost over the burst could never be paid). */
export function checkedTokens(tokens: number, burst: number): number {
  if (!Number.isInteger(tokens) || tokens < 1) throw new RangeError(`a take needs a whole number of tokens, at least 1, got ${tokens}`);
  return Math.max(1, Math.min(tokens, Math.floor(burst)));
}

/** Keys are built by the HTTP layer (`key:<sha256>`, `ip:<address>`); anything else is a bug. */
const KEY = /^[A-Za-z0-9:._+/=%-]{1,200}$/;

export function checkedKey(key: string): string {
  if (!KEY.test(key)) throw new Error('Invalid rate-limit key');
  return key;
}
