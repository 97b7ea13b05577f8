import { describe, expect, it } from 'vitest';
import { TokenBuckets } from './token-bucket.js';

describe('token buckets', () => {
  it('allows a burst, then the sustained rate, per key', () => {
    let now = 0;
    const buckets = new TokenBuckets(10, 3, () => now);
    expect([1, 2, 3].map(() => buckets.take('a'))).toEqual([0, 0, 0]);
    expect(buckets.take('a')).toBe(1);
    expect(buckets.take('b')).toBe(0);
    now += 100; // one token at 10/s
    expect(buckets.take('a')).toBe(0);
    expect(buckets.take('a')).toBeGreaterThan(0);
    now += 10_000;
    expect([1, 2, 3].map(() => buckets.take('a'))).toEqual([0, 0, 0]);
    expect(buckets.take('a')).toBeGreaterThan(0);
  });

  it('stays bounded in memory under many distinct keys', () => {
    let now = 0;
    const buckets = new TokenBuckets(1, 1, () => now, 100);
    for (let i = 0; i < 1000; i++) buckets.take(`k${i}`);
    now += 5_000;
    expect(buckets.take('k999')).toBe(0);
  });

  it('keeps a spent bucket through a flood of new keys, dropping full and partly used ones first', () => {
    let now = 0;
    // One token a minute, two at once: a bucket that took one is neither full nor spent.
    const buckets = new TokenBuckets(1 / 60, 2, () => now, 10);
    expect([1, 2].map(() => buckets.take('spent'))).toEqual([0, 0]);
    expect(buckets.take('spent')).toBeGreaterThan(0);
    for (let i = 0; i < 1000; i++) {
      buckets.take(`flood${i}`);
      now += 1;
    }
    expect(buckets.size).toBeLessThanOrEqual(10);
    expect(buckets.take('spent')).toBeGreaterThan(0);
  });

  it('drops the least recently used spent buckets once only spent ones are left', () => {
    const buckets = new TokenBuckets(1 / 60, 1, () => 0, 10);
    for (let i = 0; i < 10; i++) buckets.take(`k${i}`);
    buckets.take('k0');
    buckets.take('new');
    expect(buckets.size).toBeLessThanOrEqual(10);
    expect(buckets.take('k0')).toBeGreaterThan(0);
    expect(buckets.take('k1')).toBe(0);
  });
});
