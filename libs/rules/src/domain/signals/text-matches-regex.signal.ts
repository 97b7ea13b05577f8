import { RE2JS } from 're2js';
import type { Signal } from '../evaluation.model.js';
import { CompileCache } from './compile-cache.js';
import { requireText } from './term-matcher.js';

/** A failed compilation is cached too, so a bad pattern is not re-parsed for every item. */
type Compiled = { readonly regex: RE2JS } | { readonly error: string };

const compiled = new CompileCache<Compiled>(10_000);

/**
 * Texts longer than this (UTF-16 code units) are matched off the evaluating thread when the
 * context can (SignalContext.matchRegex). Below it the costliest patterns measured take at most
 * some 30 ms, and the thread hop (about 50 µs) would cost common texts more than the match.
 */
export const LONG_TEXT_LENGTH = 16 * 1024;

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
 * (a bounded repeat such as `.{0,1000}` costs 1.8 s per MiB; docs/rules.md, "Evaluation"): a long
 * text is matched on the context's regex thread, within its deadline, so that it holds neither the
 * other items' evaluations nor a request. Flags go inline, e.g. `(?i)`.
 */
export const textMatchesRegexSignal: Signal = {
  type: 'TEXT_MATCHES_REGEX',
  cost: 2,
  inputKinds: ['text'],
  evaluate(input, args, ctx) {
    const pattern = args.pattern;
    if (typeof pattern !== 'string') throw new Error('TEXT_MATCHES_REGEX needs args.pattern, a string');
    const text = requireText(input, 'TEXT_MATCHES_REGEX');
    // Compiled here even for a long text: a bad pattern fails the same way, and at once.
    const entry = compiled.get(pattern, () => compile(pattern));
    if ('error' in entry) throw new Error(entry.error);
    if (text.length > LONG_TEXT_LENGTH && ctx.matchRegex) return ctx.matchRegex(pattern, text);
    return entry.regex.test(text);
  },
};
