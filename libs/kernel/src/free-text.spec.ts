import { describe, expect, it } from 'vitest';
import { firstCodePoints, freeTextTooLong, MAX_FREE_TEXT_LENGTH } from './free-text.js';

describe('free text', () => {
  it('counts code points, not UTF-16 units, against the limit', () => {
    expect(freeTextTooLong('a'.repeat(MAX_FREE_TEXT_LENGTH))).toBe(false);
    expect(freeTextTooLong('a'.repeat(MAX_FREE_TEXT_LENGTH + 1))).toBe(true);
    expect(freeTextTooLong('😀'.repeat(MAX_FREE_TEXT_LENGTH))).toBe(false);
    expect(freeTextTooLong('😀'.repeat(MAX_FREE_TEXT_LENGTH) + 'a')).toBe(true);
    expect(freeTextTooLong('😀'.repeat(3 * MAX_FREE_TEXT_LENGTH))).toBe(true);
  });

  it('keeps the first code points without splitting a pair', () => {
    expect(firstCodePoints('abc', 5)).toBe('abc');
    expect(firstCodePoints('abcdef', 3)).toBe('abc');
    expect(firstCodePoints('a😀b😀', 2)).toBe('a😀');
    expect(firstCodePoints('😀😀😀', 2)).toBe('😀😀');
    // A lone high surrogate at the end is one code point, kept as it is.
    expect(firstCodePoints('ab\ud83d', 3)).toBe('ab\ud83d');
    expect(firstCodePoints('\ud83dxy', 2)).toBe('\ud83dx');
  });
});
