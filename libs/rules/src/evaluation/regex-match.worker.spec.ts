import { describe, expect, it } from 'vitest';
import { MAX_COMPILED, matchRegexAt, RECENT_MS } from './regex-match.worker.js';

// The thread's function called here, on the test's thread, at times the test gives: what it keeps
// compiled between tasks. Each test uses ids and times of its own (the module's cache is shared).
describe('the regex thread (regex-match.worker)', () => {
  it('answers null for a pattern it was never sent, and matches one sent once, then named', () => {
    expect(matchRegexAt({ id: 1, text: 'a needle' }, 0)).toBeNull();
    expect(matchRegexAt({ id: 1, pattern: 'needle', text: 'a needle' }, 0)).toBe(true);
    expect(matchRegexAt({ id: 1, text: 'a haystack' }, 0)).toBe(false);
    expect(matchRegexAt({ id: 1, text: 'needles' }, 0)).toBe(true);
  });

  it('keeps past MAX_COMPILED what was used within RECENT_MS, then drops the least recently used, keeping one used since', () => {
    const base = 1_000_000;
    const t0 = 10 * RECENT_MS;
    for (let i = 0; i < MAX_COMPILED; i++) expect(matchRegexAt({ id: base + i, pattern: `p${i}q`, text: `p${i}q` }, t0)).toBe(true);
    // Over the budget, but all in use within RECENT_MS: nothing is dropped.
    expect(matchRegexAt({ id: base + MAX_COMPILED, pattern: `p${MAX_COMPILED}q`, text: 'x' }, t0 + 1)).toBe(false);
    expect(matchRegexAt({ id: base + 1, text: 'p1q' }, t0 + 2)).toBe(true);
    // Later: the oldest used again now, so the next new pattern drops the oldest after it (2), then 3.
    const later = t0 + RECENT_MS + 10;
    expect(matchRegexAt({ id: base, text: 'p0q' }, later)).toBe(true);
    expect(matchRegexAt({ id: base + MAX_COMPILED + 1, pattern: 'r1', text: 'r1' }, later)).toBe(true);
    expect(matchRegexAt({ id: base + 2, text: 'p2q' }, later)).toBeNull();
    expect(matchRegexAt({ id: base + 3, text: 'p3q' }, later)).toBeNull();
    expect(matchRegexAt({ id: base, text: 'p0q' }, later)).toBe(true);
    expect(matchRegexAt({ id: base + 1, text: 'p1q' }, later)).toBe(true);
  });

  it('takes a compiled pattern for a task only at the length the task names (ids are hashes of the text)', () => {
    expect(matchRegexAt({ id: 7_000_001, chars: 6, pattern: 'needle', text: 'a needle' }, 0)).toBe(true);
    expect(matchRegexAt({ id: 7_000_001, chars: 6, text: 'needles' }, 0)).toBe(true);
    expect(matchRegexAt({ id: 7_000_001, chars: 5, text: 'needles' }, 0)).toBeNull();
    expect(matchRegexAt({ id: 7_000_001, chars: 5, pattern: 'hay.s', text: 'a hay-stack' }, 0)).toBe(true);
    expect(matchRegexAt({ id: 7_000_001, chars: 5, text: 'needles' }, 0)).toBe(false);
  });
});
