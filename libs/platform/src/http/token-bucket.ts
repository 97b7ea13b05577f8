import { checkedKey, type RateLimit, type RateLimitStore, secondsUntilToken } from './rate-limit-store.port.js';

/**
 * Per-key token buckets: `ratePerSecond` sustained, up to `burst` at once. Idle buckets are
 * dropped so that random keys cannot grow memory without bound.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxBuckets = 100_000,
  ) {}

  /** Takes one token; returns 0 when allowed, else the seconds to wait. */
  take(key: string): number {
    const t = this.now();
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.maxBuckets) this.evictFull(t);
      b = { tokens: this.burst, at: t };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.ratePerSecond);
      b.at = t;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return secondsUntilToken(b.tokens, this.ratePerSecond);
  }

  private evictFull(t: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((t - b.at) / 1000) * this.ratePerSecond >= this.burst) this.buckets.delete(k);
    }
    if (this.buckets.size >= this.maxBuckets) this.buckets.clear();
  }
}

/**
 * The buckets in this process. Exact where one process serves the API (the embedded profile);
 * with N api instances each keeps its own, so a key may get up to N times the rate.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly sharedAcrossInstances = false;
  private readonly buckets: TokenBuckets;

  constructor(limit: RateLimit, now?: () => number) {
    this.buckets = new TokenBuckets(limit.ratePerSecond, limit.burst, now);
  }

  async take(key: string): Promise<number> {
    return this.buckets.take(checkedKey(key));
  }
}
