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
