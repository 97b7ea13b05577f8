import { describe, expect, it } from 'vitest';
import type { TextBankDefinition } from '#warden/catalog/contracts';
import type { SignalContext } from '../evaluation.model.js';
import { textBankSignal } from './text-bank.signal.js';
import { LONG_TEXT_LENGTH } from './text-matches-regex.signal.js';

function contextWith(...banks: TextBankDefinition[]): SignalContext {
  return { textBank: (id: string) => banks.find((bank) => bank.id === id) } as SignalContext;
}

const spam: TextBankDefinition = {
  id: 'spam',
  name: 'Spam',
  terms: ['cheap-pills.example', 'free money'],
  regexes: [String.raw`\bwin\s+\$\d+`, '(?i)click here'],
};

describe('TEXT_BANK', () => {
  const ctx = contextWith(spam);
  const inBank = (input: unknown, bankId = 'spam', c = ctx) => textBankSignal.evaluate(input, { bankId }, c);

  it('declares cost 3', () => {
    expect(textBankSignal.cost).toBe(3);
  });

  it('matches terms as whole words, ignoring case', async () => {
    expect(await inBank('visit CHEAP-PILLS.example today')).toBe(true);
    expect(await inBank('Get FREE MONEY!')).toBe(true);
    expect(await inBank('freemoney')).toBe(false);
    expect(await inBank('get free moneys')).toBe(false);
  });

  it('matches any regex', async () => {
    expect(await inBank('you win $500')).toBe(true);
    expect(await inBank('CLICK HERE')).toBe(true);
    expect(await inBank('you win big')).toBe(false);
  });

  it('recompiles a bank whose content changed', async () => {
    const v1: TextBankDefinition = { id: 'b', name: 'B', terms: ['alpha'], regexes: [] };
    const v2: TextBankDefinition = { id: 'b', name: 'B', terms: ['beta'], regexes: [] };
    expect(await inBank('alpha', 'b', contextWith(v1))).toBe(true);
    expect(await inBank('alpha', 'b', contextWith(v2))).toBe(false);
    expect(await inBank('beta', 'b', contextWith({ ...v2 }))).toBe(true);
  });

  it('does not confuse same-named banks of different content', async () => {
    const other: TextBankDefinition = { ...spam, terms: ['unrelated'], regexes: [] };
    expect(await inBank('free money', 'spam', contextWith(other))).toBe(false);
  });

  it('fails on an unknown bank and non-string input', async () => {
    expect(() => inBank('x', 'missing')).toThrow('text bank missing does not exist');
    expect(() => inBank(3)).toThrow(/string input/);
  });

  it('fails on a bank with an invalid regex', async () => {
    const broken: TextBankDefinition = { id: 'broken', name: 'Broken', terms: ['ok'], regexes: ['(bad'] };
    expect(() => inBank('ok', 'broken', contextWith(broken))).toThrow(/invalid regular expression/);
  });

  it('explains with the bank id', () => {
    expect(textBankSignal.explain?.('x', { bankId: 'spam' }, true, ctx)).toEqual({ bankId: 'spam' });
  });

  it("matches a long text's regexes through the context, off the evaluating thread, its terms here", async () => {
    const asked: string[] = [];
    const offThread = {
      ...ctx,
      matchRegex: (pattern: string, text: string) => {
        asked.push(pattern);
        return Promise.resolve(text.includes('win $5'));
      },
    } as SignalContext;
    const long = 'x '.repeat(LONG_TEXT_LENGTH);
    expect(await inBank(`${long} free money`, 'spam', offThread)).toBe(true);
    expect(asked).toEqual([]);
    expect(await inBank(`${long} you win $5`, 'spam', offThread)).toBe(true);
    expect(await inBank(long, 'spam', offThread)).toBe(false);
    // The bank's regexes as one pattern, as they are matched here.
    expect(asked).toEqual([String.raw`(?:\bwin\s+\$\d+)|(?:(?i)click here)`, String.raw`(?:\bwin\s+\$\d+)|(?:(?i)click here)`]);
  });

  it("matches a bank of many terms on the context's thread whatever the text, its regexes here for a short text", async () => {
    const asked: string[] = [];
    const big: TextBankDefinition = { id: 'big', name: 'Big', terms: Array.from({ length: 1_001 }, (_, i) => `w${i}`), regexes: ['(?i)click here'] };
    const offThread = {
      ...contextWith(big),
      matchRegex: (pattern: string, text: string) => {
        asked.push(pattern);
        return Promise.resolve(/\bw7\b/.test(text));
      },
    } as SignalContext;
    expect(await inBank('say w7', 'big', offThread)).toBe(true);
    expect(await inBank('CLICK HERE', 'big', offThread)).toBe(true);
    expect(await inBank('nothing', 'big', offThread)).toBe(false);
    expect(asked).toHaveLength(3);
    // The terms as V8's pattern (term-matcher.ts, NATIVE_PATTERN_PREFIX), their case folded (f).
    expect(asked[0]).toMatch(/^\(\?native-fu\)/);
  });
});
