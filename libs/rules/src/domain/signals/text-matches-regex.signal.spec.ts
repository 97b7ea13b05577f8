import { describe, expect, it } from 'vitest';
import type { SignalContext } from '../evaluation.model.js';
import { MAX_TEXT_LENGTH } from './term-matcher.js';
import { textMatchesRegexSignal } from './text-matches-regex.signal.js';

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
});
