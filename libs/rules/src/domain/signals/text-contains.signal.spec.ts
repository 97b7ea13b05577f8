import { RE2JS } from 're2js';
import { matchRegexAt } from '../../evaluation/regex-match.worker.js';
import { describe, expect, it } from 'vitest';
import type { SignalContext } from '../evaluation.model.js';
import { compileTermMatcher, NATIVE_PATTERN_PREFIX, TERM_STEPS_IN_PLACE } from './term-matcher.js';
import { textContainsSignal } from './text-contains.signal.js';

const ctx = {} as SignalContext;
const contains = (input: unknown, args: { [key: string]: unknown }) => textContainsSignal.evaluate(input, args, ctx);

describe('TEXT_CONTAINS', () => {
  it('declares cost 1 and text input', () => {
    expect(textContainsSignal.type).toBe('TEXT_CONTAINS');
    expect(textContainsSignal.cost).toBe(1);
  });

  it('finds any term, case-insensitively by default', async () => {
    expect(await contains('Buy CHEAP pills', { terms: ['free', 'cheap'] })).toBe(true);
    expect(await contains('nothing here', { terms: ['free', 'cheap'] })).toBe(false);
  });

  it('honours caseSensitive', async () => {
    expect(await contains('Buy CHEAP pills', { terms: ['cheap'], caseSensitive: true })).toBe(false);
    expect(await contains('Buy CHEAP pills', { terms: ['CHEAP'], caseSensitive: true })).toBe(true);
  });

  it('matches substrings unless wholeWord', async () => {
    expect(await contains('scunthorpe', { terms: ['cunt'] })).toBe(true);
    expect(await contains('scunthorpe', { terms: ['cunt'], wholeWord: true })).toBe(false);
    expect(await contains('you cunt!', { terms: ['cunt'], wholeWord: true })).toBe(true);
    expect(await contains('ass_hat', { terms: ['ass'], wholeWord: true })).toBe(false);
    expect(await contains('ass-hat', { terms: ['ass'], wholeWord: true })).toBe(true);
  });

  it('treats accented letters as word characters and folds their case', async () => {
    expect(await contains('un cafébar', { terms: ['café'], wholeWord: true })).toBe(false);
    expect(await contains('un CAFÉ noir', { terms: ['café'], wholeWord: true })).toBe(true);
    expect(await contains('déjà vu', { terms: ['ja'], wholeWord: true })).toBe(false);
  });

  it('takes terms literally', async () => {
    expect(await contains('price: $5.00 (only)', { terms: ['$5.00 (only)'] })).toBe(true);
    expect(await contains('price: $5x00', { terms: ['$5.00'] })).toBe(false);
    expect(await contains('a+b', { terms: ['a+b'], wholeWord: true })).toBe(true);
  });

  it('handles large term lists the same way', async () => {
    const terms = Array.from({ length: 500 }, (_, i) => `word${i}`);
    expect(await contains('this has WORD321 inside', { terms, wholeWord: true })).toBe(true);
    expect(await contains('this has word3210 inside', { terms, wholeWord: true })).toBe(false);
    expect(await contains('this has word3210 inside', { terms })).toBe(true);
    expect(await contains('un CAFÉ noir', { terms: [...terms, 'café'], wholeWord: true })).toBe(true);
    expect(await contains('un cafébar', { terms: [...terms, 'café'], wholeWord: true })).toBe(false);
    expect(await contains('Word1', { terms: [...terms, 'zz'], caseSensitive: true })).toBe(false);
  });

  it('ignores empty terms instead of matching everything', async () => {
    expect(await contains('anything', { terms: [''] })).toBe(false);
  });

  it('rejects non-string input and malformed args', async () => {
    expect(() => contains(42, { terms: ['4'] })).toThrow(/string input/);
    expect(() => contains(['a'], { terms: ['a'] })).toThrow(/string input/);
    expect(() => contains('a', { terms: 'a' })).toThrow(/args.terms/);
  });

  describe('very many terms, or a long one (matched off the evaluating thread)', () => {
    /** Case-sensitive or not, whole words or not: each pair. */
    const EVERY_OPTION = [
      { caseSensitive: false, wholeWord: false },
      { caseSensitive: true, wholeWord: false },
      { caseSensitive: false, wholeWord: true },
      { caseSensitive: true, wholeWord: true },
    ];
    const many = Array.from({ length: 1_001 }, (_, i) => `term${i}`);
    /** A context whose regex thread answers `answer`, noting the patterns it was asked. */
    const offThread = (answer: boolean) => {
      const asked: string[] = [];
      const context = { matchRegex: (pattern: string) => (asked.push(pattern), Promise.resolve(answer)) } as unknown as SignalContext;
      return { asked, context };
    };

    it('hands 1,001 terms, or one of 257 characters, to the context however short the text; 1,000 short ones stay here', async () => {
      const { asked, context } = offThread(true);
      expect(await textContainsSignal.evaluate('short', { terms: many }, context)).toBe(true);
      expect(await textContainsSignal.evaluate('short', { terms: ['x'.repeat(257)] }, context)).toBe(true);
      expect(asked).toHaveLength(2);
      expect(textContainsSignal.evaluate('term1 here', { terms: many.slice(0, 48) }, context)).toBe(true);
      expect(textContainsSignal.evaluate('term999 here', { terms: many.slice(0, 1_000) }, context)).toBe(true);
      expect(asked).toHaveLength(2);
    });

    it("sends short terms to the thread too once the evaluation has spent its in-place steps (the terms' depth times the text's length)", async () => {
      // The shape a hunt found: every term a prefix of the next, over a text that follows them all the way.
      const chain = Array.from({ length: 255 }, (_, k) => `${'a'.repeat(k + 1)}b`);
      const longText = 'a'.repeat(5_000); // 5,000 × 256 steps: more than TERM_STEPS_IN_PLACE at once
      const { asked, context } = offThread(false);
      expect(await textContainsSignal.evaluate(longText, { terms: chain }, context)).toBe(false);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.startsWith(NATIVE_PATTERN_PREFIX)).toBe(true);
      // A short text with the same list stays here, in a fresh evaluation...
      const fresh = offThread(false);
      const text = 'a'.repeat(1_000); // 256,000 steps
      for (let i = 0; i < 4; i++) expect(textContainsSignal.evaluate(text, { terms: chain }, fresh.context)).toBe(false);
      expect(fresh.asked).toHaveLength(0);
      // ...until the evaluation's steps are spent: the fifth 256,000 leave the thread.
      expect(await textContainsSignal.evaluate(text, { terms: chain }, fresh.context)).toBe(false);
      expect(fresh.asked).toHaveLength(1);
      expect(4 * 256_000).toBeLessThanOrEqual(TERM_STEPS_IN_PLACE);
      expect(5 * 256_000).toBeGreaterThan(TERM_STEPS_IN_PLACE);
    });

    it("gives the thread, for many short terms, V8's pattern, which the thread answers as the matcher here does", () => {
      const short = ['term7', 'a.b', 'C++', 'naïve', ...many];
      let id = 9_000_000; // apart from the ids other specs give the same module's patterns
      for (const options of EVERY_OPTION) {
        const matcher = compileTermMatcher(short, options);
        expect(matcher.offThread?.startsWith(`${NATIVE_PATTERN_PREFIX}${options.caseSensitive ? 'u' : 'fu'})`)).toBe(true);
        const task = { id: id++, pattern: matcher.offThread! };
        for (const text of ['TERM7 now', 'a term7x', 'term1000', 'TERM1000!', 'aXb a.b', 'use c++ today', 'NAÏVE', 'unnaïve', 'nothing']) {
          expect([options, text, matchRegexAt({ ...task, text }, 0)]).toEqual([options, text, matcher.test(text)]);
        }
      }
    });

    it("gives the thread an RE2 pattern that answers as V8's matcher of the same terms: case, whole words, the terms' own characters", () => {
      const short = ['term7', 'a.b', 'C++', 'naïve'];
      // A long term no text below holds sends the same terms to the thread.
      const long = 'z'.repeat(257);
      for (const options of EVERY_OPTION) {
        const here = compileTermMatcher(short, options);
        // Matched here while the evaluation's steps last: a character times the longest term.
        expect(here.steps(10)).toBe(50);
        expect(compileTermMatcher([...short, long], options).steps(1)).toBe(Infinity);
        const there = RE2JS.compile(compileTermMatcher([...short, long], options).offThread!);
        for (const text of ['TERM7 now', 'a term7x', 'term7', 'aXb a.b', 'use c++ today', 'NAÏVE', 'unnaïve', 'nothing']) {
          expect([options, text, there.test(text)]).toEqual([options, text, here.test(text)]);
        }
      }
    });
  });
});
