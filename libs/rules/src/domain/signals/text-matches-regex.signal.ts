import { RE2JS } from 're2js';
import type { Signal, SignalContext } from '../evaluation.model.js';
import { CompileCache } from './compile-cache.js';
import { requireText } from './term-matcher.js';

/** A failed compilation is cached too, so a bad pattern is not re-parsed for every item. */
type Compiled = { readonly regex: RE2JS } | { readonly error: string };

const compiled = new CompileCache<Compiled>(10_000);

/**
 * Characters (UTF-16 code units) an evaluation may match with regular expressions in place, all
 * its regex leaves together; the rest is matched off the evaluating thread when the context can
 * (SignalContext.matchRegex). Up to it the costliest patterns measured take some 60 ms at most,
 * and the thread hop (about 50 µs) would cost common texts more than the match. Counted per
 * evaluation, not per text: an array field of 64 texts just under a per-text bound held the
 * evaluating thread 17 s (a hunt's measurement, docs/rules.md, "Evaluation").
 */
export const LONG_TEXT_LENGTH = 4 * 1024;

/** Characters each evaluation (its context, one per item version evaluated) has matched in place. */
const matchedHere = new WeakMap<SignalContext, number>();

/** True when `length` more characters go to the context's regex thread; else they are counted as matched here. */
export function matchOffThread(ctx: SignalContext, length: number): boolean {
  if (!ctx.matchRegex) return false;
  const here = matchedHere.get(ctx) ?? 0;
  if (here + length > LONG_TEXT_LENGTH) return true;
  matchedHere.set(ctx, here + length);
  return false;
}

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
    if (ctx.matchRegex && matchOffThread(ctx, text.length)) return ctx.matchRegex(pattern, text);
    return entry.regex.test(text);
  },
};
