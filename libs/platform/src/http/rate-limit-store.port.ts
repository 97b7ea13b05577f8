/**
 * Where the per-key token buckets of the API's rate limit live. A bucket holds `burst` tokens
 * and refills at `ratePerSecond`; every request takes one.
 */
export interface RateLimitStore {
  /** Takes one token from `key`'s bucket: 0 when the request may go ahead, else the whole seconds to wait (at least 1). */
  take(key: string): Promise<number>;
  /** Whether instances that open this store against the same backend share one bucket per key. */
  readonly sharedAcrossInstances: boolean;
}

export interface RateLimit {
  readonly ratePerSecond: number;
  readonly burst: number;
}

/** Seconds until a bucket holding `tokens` (< 1) has one whole token again. */
export function secondsUntilToken(tokens: number, ratePerSecond: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / ratePerSecond));
}

/** Keys are built by the HTTP layer (`key:<sha256>`, `ip:<address>`); anything else is a bug. */
const KEY = /^[A-Za-z0-9:._+/=%-]{1,200}$/;

export function checkedKey(key: string): string {
  if (!KEY.test(key)) throw new Error('Invalid rate-limit key');
  return key;
}
