import { describe, expect, it } from 'vitest';
import { CompileCache } from './compile-cache.js';

describe('CompileCache', () => {
  it('builds a key once and stays bounded', () => {
    const cache = new CompileCache<number>(4);
    let builds = 0;
    const build = () => ++builds;
    expect(cache.get('a', build)).toBe(1);
    expect(cache.get('a', build)).toBe(1);
    for (const key of ['b', 'c', 'd', 'e', 'f', 'g']) cache.get(key, build);
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(cache.get('a', build)).toBe(builds);
    expect(builds).toBe(8);
  });

  it('keeps an entry that is still being read', () => {
    const cache = new CompileCache<string>(4);
    cache.get('hot', () => 'v1');
    for (const key of ['b', 'c', 'd', 'e', 'f', 'g']) {
      cache.get(key, () => key);
      expect(cache.get('hot', () => 'rebuilt')).toBe('v1');
    }
  });
});
