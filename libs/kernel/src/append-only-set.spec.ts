import { describe, expect, it } from 'vitest';
import { AppendOnlySet } from './append-only-set.js';

describe('AppendOnlySet', () => {
  it('adds without changing the set it was added to, keeping the order keys came in', () => {
    const empty = AppendOnlySet.empty();
    const one = empty.with(['a']);
    const three = one.with(['b', 'a', 'c']);
    expect([...empty]).toEqual([]);
    expect([...one]).toEqual(['a']);
    expect([...three]).toEqual(['a', 'b', 'c']);
    expect(three.size).toBe(3);
    expect(one.has('b')).toBe(false);
    expect(three.has('b')).toBe(true);
    expect(three.with(['a', 'c'])).toBe(three);
  });

  it('an older set added to again (a state folded twice) gets keys of its own, and the newer one keeps its', () => {
    const base = AppendOnlySet.of(['a', 'b']);
    const left = base.with(['c']);
    const right = base.with(['x', 'y']);
    const leftAgain = left.with(['d']);
    expect([...base]).toEqual(['a', 'b']);
    expect([...left]).toEqual(['a', 'b', 'c']);
    expect([...right]).toEqual(['a', 'b', 'x', 'y']);
    expect([...leftAgain]).toEqual(['a', 'b', 'c', 'd']);
    expect([base.has('c'), left.has('x'), right.has('c'), right.has('x'), leftAgain.has('y')]).toEqual([false, false, false, true, false]);
    // A key the newer set has, added to the older one: the older one's own, not "already there".
    const again = base.with(['c', 'x']);
    expect([...again]).toEqual(['a', 'b', 'c', 'x']);
  });

  it("never lends an empty set's keys: sets started from the initial state are apart", () => {
    const first = AppendOnlySet.empty().with(['a']);
    const second = AppendOnlySet.empty().with(['b']);
    expect([...first]).toEqual(['a']);
    expect([...second]).toEqual(['b']);
    expect(second.has('a')).toBe(false);
    expect(JSON.stringify(AppendOnlySet.empty())).toBe('[]');
    expect(JSON.stringify(first.with(['c']))).toBe('["a","c"]');
  });

  it('folds 100,000 additions one at a time, every set handed out staying as it was', () => {
    let set = AppendOnlySet.empty();
    const kept: AppendOnlySet[] = [];
    for (let n = 0; n < 100_000; n++) {
      set = set.with([String(n)]);
      if (n % 25_000 === 0) kept.push(set);
    }
    expect(set.size).toBe(100_000);
    expect(set.has('99999')).toBe(true);
    expect(kept.map((k) => [k.size, k.has(String(k.size - 1)), k.has(String(k.size))])).toEqual([
      [1, true, false],
      [25_001, true, false],
      [50_001, true, false],
      [75_001, true, false],
    ]);
    expect([...kept[1]!]).toHaveLength(25_001);
  });
});
