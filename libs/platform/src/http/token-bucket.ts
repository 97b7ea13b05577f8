import { checkedKey, checkedTokens, type RateLimit, type RateLimitStore, secondsUntilToken } from './rate-limit-store.port.js';

/**
 * Per-key token buckets: `ratePerSecond` sustained, up to `burst` at once. At `maxBuckets`, buckets
 * are dropped so that random keys cannot grow memory without bound: full ones first (dropping them
 * changes nothing), then, least recently used first, those with a token left, and spent ones only
 * last. So a flood of new keys or addresses cannot give a spent bucket its burst back.
 */
export class TokenBuckets {
  /** In order of last use: each take moves its bucket to the end. */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxBuckets = 100_000,
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  /** Takes `cost` tokens (all or none); returns 0 when allowed, else the seconds to wait. */
  take(key: string, cost = 1): number {
    cost = checkedTokens(cost, this.burst);
    const t = this.now();
    let b = this.buckets.get(key);
    if (b) {
      b.tokens = this.tokensAt(b, t);
      b.at = t;
      this.buckets.delete(key);
    } else {
      if (this.buckets.size >= this.maxBuckets) this.evict(t);
      b = { tokens: this.burst, at: t };
    }
    this.buckets.set(key, b);
    if (b.tokens >= cost) {
      b.tokens -= cost;
      return 0;
    }
    return secondsUntilToken(b.tokens, this.ratePerSecond, cost);
  }

  private tokensAt(b: { tokens: number; at: number }, t: number): number {
    return Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.ratePerSecond);
  }

  /** Drops down to nine tenths of `maxBuckets`, so that eviction runs once per many new keys. */
  private evict(t: number): void {
    const target = Math.floor(this.maxBuckets * 0.9);
    const passes: Array<(tokens: number) => boolean> = [(tokens) => tokens >= this.burst, (tokens) => tokens >= 1, () => true];
    for (const drop of passes) {
      for (const [k, b] of this.buckets) {
        if (this.buckets.size <= target) return;
        if (drop(this.tokensAt(b, t))) this.buckets.delete(k);
      }
    }
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

  async take(key: string, tokens = 1): Promise<number> {
    return this.buckets.take(checkedKey(key), tokens);
  }
}
