import { RE2JS } from 're2js';
import type { Signal } from '../evaluation.model.js';
import { CompileCache } from './compile-cache.js';
import { requireText } from './term-matcher.js';

/** A failed compilation is cached too, so a bad pattern is not re-parsed for every item. */
type Compiled = { readonly regex: RE2JS } | { readonly error: string };

const compiled = new CompileCache<Compiled>(10_000);

function compile(pattern: string): Compiled {
  try {
    return { regex: RE2JS.compile(pattern) };
  } catch (error) {
    return { error: `invalid regular expression: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * `{pattern}` → true when the pattern matches anywhere in the text. RE2 semantics: linear in the
 * text, so no input backtracks exponentially, but the time per character grows with the pattern
 * (a bounded repeat such as `.{0,1000}` costs 1.8 s per MiB; docs/rules.md, "Evaluation"). Flags go
 * inline, e.g. `(?i)`.
 */
export const textMatchesRegexSignal: Signal = {
  type: 'TEXT_MATCHES_REGEX',
  cost: 2,
  inputKinds: ['text'],
  evaluate(input, args) {
    const pattern = args.pattern;
    if (typeof pattern !== 'string') throw new Error('TEXT_MATCHES_REGEX needs args.pattern, a string');
    const text = requireText(input, 'TEXT_MATCHES_REGEX');
    const entry = compiled.get(pattern, () => compile(pattern));
    if ('error' in entry) throw new Error(entry.error);
    return entry.regex.test(text);
  },
};
