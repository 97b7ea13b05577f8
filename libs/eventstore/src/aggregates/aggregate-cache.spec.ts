import { describe, expect, it } from 'vitest';
import { AggregateCache, approximateSize } from './aggregate-cache.js';

describe('the aggregate cache', () => {
  it('estimates a large state from a sample, within a small factor of its JSON size', () => {
    const hashes = new Set(Array.from({ length: 200_000 }, (_, i) => `f8a1c3e9b2d4${String(i).padStart(52, '0')}`));
    const state = { bankId: 'bank', hashes, count: hashes.size };
    const json = JSON.stringify({ ...state, hashes: [...hashes] }).length;
    const estimate = approximateSize(state);
    expect(estimate).toBeGreaterThan(json);
    expect(estimate).toBeLessThan(json * 4);
  });

  it('estimates each kind of value: strings by length, collections by their first 64 entries times their length', () => {
    expect(approximateSize('abcd')).toBe(16 + 8);
    expect(approximateSize(42)).toBe(8);
    expect(approximateSize(null)).toBe(8);
    expect(approximateSize(['ab', 'cd'])).toBe(32 + 2 * 20);
    expect(approximateSize({ a: 'xy', b: 1 })).toBe(48 + (16 + 2 + 16 + 4) + (16 + 2 + 8));
    expect(approximateSize(new Map([['k', 'v']]))).toBe(64 + 18 + 18);
    expect(approximateSize(new Set(['a', 'b']))).toBe(64 + 2 * 18);
    // Past 64 entries, the first 64's average times the length: 100 entries of 18 bytes, then 100 of 20 (not looked at).
    const strings = [...Array.from({ length: 100 }, (_, i) => String.fromCharCode(65 + (i % 26))), ...Array.from({ length: 100 }, () => 'ab')];
    expect(approximateSize(strings)).toBe(32 + 200 * 18);
    expect(approximateSize(new Set(Array.from({ length: 200 }, (_, i) => (i < 64 ? `k${String(i).padStart(2, '0')}` : `${i}`))))).toBe(64 + 200 * 22);
    const wide = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${String(i).padStart(3, '0')}`, i < 64 ? 1 : 'a long value, not sampled']));
    expect(approximateSize(wide)).toBe(48 + 200 * (16 + 8 + 8));
    expect(approximateSize(new Map(Object.entries(wide)))).toBe(64 + 200 * (16 + 8 + 8));
  });

  it('keeps its estimated size within the budget, the least recently used out first', () => {
    const cache = new AggregateCache(100_000);
    for (let i = 0; i < 1_000; i++)
      cache.set(`s${i}`, { state: { keys: Array.from({ length: 20 }, (_, j) => `key-${i}-${j}`) }, revision: i, snapshotRevision: -1 });
    expect(cache.bytes).toBeLessThanOrEqual(100_000);
    expect(cache.get('s999')).toBeDefined();
    expect(cache.get('s0')).toBeUndefined();
  });

  it('does not keep a state larger than a quarter of its budget', () => {
    const cache = new AggregateCache(100_000);
    cache.set('small', { state: { n: 1 }, revision: 0, snapshotRevision: -1 });
    cache.set('huge', { state: { keys: Array.from({ length: 5_000 }, (_, i) => `key-${i}`) }, revision: 0, snapshotRevision: -1 });
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('small')).toBeDefined();
  });

  it('never replaces a state with one of an earlier revision', () => {
    const cache = new AggregateCache();
    cache.set('s', { state: 'newer', revision: 5, snapshotRevision: -1 });
    cache.set('s', { state: 'older', revision: 3, snapshotRevision: -1 });
    expect(cache.get('s')?.state).toBe('newer');
  });
});
