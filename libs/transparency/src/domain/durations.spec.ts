import { describe, expect, it } from 'vitest';
import { durationBucket, percentile } from './durations.js';

describe('report durations', () => {
  it('rounds seconds down to three significant digits', () => {
    expect([0, 999, 7265_000, 1_234_567_000].map(durationBucket)).toEqual([0, 0, 7260, 1_230_000]);
    expect(durationBucket(999_999)).toBe(999);
  });

  it('takes nearest-rank percentiles of a histogram', () => {
    const histogram = new Map([
      [10, 5],
      [20, 4],
      [300, 1],
    ]);
    expect(percentile(histogram, 0.5)).toBe(10);
    expect(percentile(histogram, 0.9)).toBe(20);
    expect(percentile(histogram, 1)).toBe(300);
    expect(percentile(new Map(), 0.5)).toBeNull();
  });
});
