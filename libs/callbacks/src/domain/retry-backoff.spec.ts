import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#warden/platform';
import { JITTER, MAX_RETRY_AFTER_MS, parseRetryAfterMs, retryDelayMs } from './retry-backoff.js';

const schedule = (value?: string) => loadConfig(value === undefined ? {} : { WARDEN_CALLBACK_RETRY_SCHEDULE: value }, '/srv').callbackRetryScheduleMs;

describe('WARDEN_CALLBACK_RETRY_SCHEDULE', () => {
  it('defaults to five retries: 10 s, 1 min, 5 min, 30 min, 2 h', () => {
    expect(schedule()).toEqual([10_000, 60_000, 300_000, 1_800_000, 7_200_000]);
  });

  it('reads ms, s, m and h, with spaces and fractions', () => {
    expect(schedule('50ms,100ms,200ms,400ms,800ms')).toEqual([50, 100, 200, 400, 800]);
    expect(schedule(' 1.5s , 2m,1h ')).toEqual([1500, 120_000, 3_600_000]);
    expect(schedule('250ms')).toEqual([250]);
  });

  it.each([
    ['10', 'has an invalid duration "10"'],
    ['10x', 'has an invalid duration "10x"'],
    ['1s,,2s', 'has an invalid duration ""'],
    ['0s', 'has an invalid duration "0s"'],
    ['-1s', 'has an invalid duration "-1s"'],
    ['25h', 'has an invalid duration "25h"'],
    ['1s,1s,1s,1s,1s,1s', 'has at most 5 entries, got 6'],
  ])('refuses %j with a ConfigError', (value, message) => {
    expect(() => schedule(value)).toThrow(ConfigError);
    expect(() => schedule(value)).toThrow(`WARDEN_CALLBACK_RETRY_SCHEDULE ${message}`);
  });
});

describe('retry backoff', () => {
  const defaults = [10_000, 60_000, 300_000, 1_800_000, 7_200_000];

  it('follows the schedule, one entry per retry, then says dead-letter', () => {
    expect([1, 2, 3, 4, 5].map((retry) => retryDelayMs(defaults, retry, 0.5))).toEqual(defaults);
    expect(retryDelayMs(defaults, 6, 0.5)).toBeUndefined();
    expect(retryDelayMs([50], 2, 0.5)).toBeUndefined();
  });

  it('spreads each delay by the jitter, never beyond it', () => {
    expect(retryDelayMs(defaults, 1, 0)).toBe(10_000 * (1 - JITTER));
    expect(retryDelayMs(defaults, 1, 0.999999)).toBeCloseTo(10_000 * (1 + JITTER), -1);
    const spread = new Set(Array.from({ length: 50 }, (_, i) => retryDelayMs(defaults, 2, i / 50)));
    expect(spread.size).toBeGreaterThan(40);
    for (const d of spread) expect(d! >= 48_000 && d! <= 72_000).toBe(true);
  });

  it('waits at least as long as Retry-After asks, up to a day', () => {
    expect(retryDelayMs([50, 100], 1, 0.5, 2000)).toBe(2000);
    expect(retryDelayMs(defaults, 1, 0.5, 2000)).toBe(10_000);
    expect(retryDelayMs([50], 1, 0.5, 10 * MAX_RETRY_AFTER_MS)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelayMs([50], 2, 0.5, 2000)).toBeUndefined();
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('soon', now)).toBeNull();
    expect(parseRetryAfterMs(undefined, now)).toBeNull();
  });
});
