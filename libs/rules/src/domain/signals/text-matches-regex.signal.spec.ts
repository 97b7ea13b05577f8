import { describe, expect, it } from 'vitest';
import type { SignalContext } from '../evaluation.model.js';
import { MAX_TEXT_LENGTH } from './term-matcher.js';
import { LONG_TEXT_LENGTH, textMatchesRegexSignal } from './text-matches-regex.signal.js';

const ctx = {} as SignalContext;
const matches = (input: unknown, pattern: unknown) => textMatchesRegexSignal.evaluate(input, { pattern }, ctx);

describe('TEXT_MATCHES_REGEX', () => {
  it('declares cost 2', () => {
    expect(textMatchesRegexSignal.cost).toBe(2);
  });

  it('matches anywhere in the text with RE2 syntax', async () => {
    expect(await matches('win $100 now', String.raw`\bwin\s+\$\d+`)).toBe(true);
    expect(await matches('winner', String.raw`\bwin\s+\$\d+`)).toBe(false);
    expect(await matches('HELLO', '(?i)hello')).toBe(true);
    expect(await matches('HELLO', 'hello')).toBe(false);
  });

  it('finishes on a hostile pattern and input', async () => {
    const input = `${'a'.repeat(100_000)}!`;
    expect(await matches(input, '(a+)+$')).toBe(false);
    expect(await matches(input, '(a|aa)+b')).toBe(false);
  });

  it('only looks at the first 1 MiB of text', async () => {
    const input = `${'a'.repeat(MAX_TEXT_LENGTH)}needle`;
    expect(await matches(input, 'needle')).toBe(false);
    expect(await matches(`needle${input}`, 'needle')).toBe(true);
  });

  it('fails on an invalid pattern, every time', async () => {
    expect(() => matches('x', '(unclosed')).toThrow(/invalid regular expression/);
    expect(() => matches('x', '(unclosed')).toThrow(/invalid regular expression/);
    expect(() => matches('x', '(?<=x)y(?=z)')).toThrow(/invalid regular expression/);
  });

  it('rejects non-string input', async () => {
    expect(() => matches({ text: 'a' }, 'a')).toThrow(/string input/);
  });

  describe('a long text', () => {
    /** The context's off-thread matcher, answering `answer` and noting what it was asked. */
    const offThread = (answer: boolean) => {
      const asked: Array<{ pattern: string; length: number }> = [];
      const context = {
        matchRegex: (pattern: string, text: string) => {
          asked.push({ pattern, length: text.length });
          return Promise.resolve(answer);
        },
      } as unknown as SignalContext;
      return { asked, context };
    };

    it("is matched by the context, off the evaluating thread, and its answer is the signal's", async () => {
      const { asked, context } = offThread(true);
      const text = `${'x'.repeat(LONG_TEXT_LENGTH)}needle`;
      const value = textMatchesRegexSignal.evaluate(text, { pattern: 'needle' }, context);
      expect(value).toBeInstanceOf(Promise);
      expect(await value).toBe(true);
      expect(asked).toEqual([{ pattern: 'needle', length: LONG_TEXT_LENGTH + 6 }]);
    });

    it('is cut to the first 1 MiB before it goes', async () => {
      const { asked, context } = offThread(false);
      await textMatchesRegexSignal.evaluate('x'.repeat(MAX_TEXT_LENGTH + 10), { pattern: 'needle' }, context);
      expect(asked).toEqual([{ pattern: 'needle', length: MAX_TEXT_LENGTH }]);
    });

    it('stays here up to LONG_TEXT_LENGTH, and where the context cannot match elsewhere', () => {
      const { asked, context } = offThread(false);
      expect(textMatchesRegexSignal.evaluate(`${'x'.repeat(LONG_TEXT_LENGTH - 6)}needle`, { pattern: 'needle' }, context)).toBe(true);
      expect(textMatchesRegexSignal.evaluate(`${'x'.repeat(LONG_TEXT_LENGTH)}needle`, { pattern: 'needle' }, ctx)).toBe(true);
      expect(asked).toEqual([]);
    });

    it("counts what one evaluation matched here: its texts past LONG_TEXT_LENGTH in all go to the thread (an array field's elements)", async () => {
      const { asked, context } = offThread(true);
      const half = `${'x'.repeat(LONG_TEXT_LENGTH / 2 - 6)}needle`;
      expect(textMatchesRegexSignal.evaluate(half, { pattern: 'needle' }, context)).toBe(true);
      expect(textMatchesRegexSignal.evaluate(half, { pattern: 'needle' }, context)).toBe(true);
      expect(asked).toEqual([]);
      expect(await textMatchesRegexSignal.evaluate(half, { pattern: 'needle' }, context)).toBe(true);
      expect(asked).toEqual([{ pattern: 'needle', length: LONG_TEXT_LENGTH / 2 }]);
      // Another evaluation (its own context) starts its own count.
      const other = offThread(true);
      expect(textMatchesRegexSignal.evaluate(half, { pattern: 'needle' }, other.context)).toBe(true);
      expect(other.asked).toEqual([]);
    });

    it('with an invalid pattern fails here, at once, as a short one does', () => {
      const { asked, context } = offThread(true);
      expect(() => textMatchesRegexSignal.evaluate('x'.repeat(LONG_TEXT_LENGTH + 1), { pattern: '(unclosed' }, context)).toThrow(/invalid regular expression/);
      expect(asked).toEqual([]);
    });
  });
});
