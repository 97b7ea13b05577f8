import { describe, expect, it } from 'vitest';
import matchRegex, { MAX_COMPILED } from './regex-match.worker.js';

// The thread's function called here, on the test's thread: what it keeps compiled between tasks.
// Each test uses ids of its own (the module's cache is shared by the file's tests).
describe('the regex thread (regex-match.worker)', () => {
  it('answers null for a pattern it was never sent, and matches one sent once, then named', () => {
    expect(matchRegex({ id: 1, text: 'a needle' })).toBeNull();
    expect(matchRegex({ id: 1, pattern: 'needle', text: 'a needle' })).toBe(true);
    expect(matchRegex({ id: 1, text: 'a haystack' })).toBe(false);
    expect(matchRegex({ id: 1, text: 'needles' })).toBe(true);
  });

  it('drops the least recently used pattern past MAX_COMPILED, and keeps one used since', () => {
    const base = 1_000_000;
    for (let i = 0; i < MAX_COMPILED; i++) expect(matchRegex({ id: base + i, pattern: `p${i}q`, text: `p${i}q` })).toBe(true);
    // The oldest used now: the next one new drops the second oldest instead.
    expect(matchRegex({ id: base, text: 'p0q' })).toBe(true);
    for (let i = MAX_COMPILED; i < 2 * MAX_COMPILED - 1; i++) expect(matchRegex({ id: base + i, pattern: `p${i}q`, text: `p${i}q` })).toBe(true);
    expect(matchRegex({ id: base + 1, text: 'p1q' })).toBeNull();
    expect(matchRegex({ id: base + MAX_COMPILED - 1, text: `p${MAX_COMPILED - 1}q` })).toBeNull();
    expect(matchRegex({ id: base, text: 'p0q' })).toBe(true);
    expect(matchRegex({ id: base + 2 * MAX_COMPILED - 2, text: `p${2 * MAX_COMPILED - 2}q` })).toBe(true);
  });
});
