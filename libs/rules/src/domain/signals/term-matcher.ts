import { RE2JS } from 're2js';
import type { SignalType } from '#warden/catalog/contracts';

/** Text signals look at most at the first 1 MiB (in UTF-16 code units) of their input. */
export const MAX_TEXT_LENGTH = 1024 * 1024;

export function requireText(input: unknown, signal: SignalType): string {
  if (typeof input !== 'string') throw new Error(`${signal} needs a string input, got ${describe(input)}`);
  return input.length > MAX_TEXT_LENGTH ? input.slice(0, MAX_TEXT_LENGTH) : input;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export interface TermMatcher {
  test(text: string): boolean;
  /**
   * The RE2 pattern of a matcher that may cost far more than its text (more than IN_PLACE_MAX_TERMS
   * terms, or a long one): matched off the evaluating thread where the context can (SignalContext.matchRegex).
   */
  readonly offThread?: string;
}

export interface TermOptions {
  readonly caseSensitive: boolean;
  /** The match must be bounded by non-word characters (or the ends of the text). */
  readonly wholeWord: boolean;
}

/** Word characters: letters (accented included), marks, digits and `_`. */
const WORD_CLASS = '\\p{L}\\p{M}\\p{N}_';

/**
 * Up to this many terms, none longer than MAX_TERM_LENGTH, V8's own regex engine is fastest: a
 * plain alternation of short escaped literals with one-character lookarounds cannot backtrack
 * catastrophically. Beyond it its cost grows with the number of terms, while RE2's DFA does not.
 */
const NATIVE_MAX_TERMS = 48;
/**
 * Past this many terms, or with a term longer than MAX_TERM_LENGTH, a match may cost far more than
 * its text: RE2's DFA runs out of memory somewhere past 10,000 terms and falls back to about 1 ms a
 * character (12,000 terms: a 256 KiB text took 400 s, 1,000 characters 2.1 s), and V8 backtracks on
 * a long literal (30,000 characters: 3.7 s on 256 KiB; a hunt's measurements, docs/rules.md,
 * "Evaluation"). Those go to the regex thread. Below it RE2 answers here, in about 1 µs for a short
 * text, where the hop to the thread costs some 20 µs and waits behind other organizations' matches.
 */
const IN_PLACE_MAX_TERMS = 1_000;
const MAX_TERM_LENGTH = 256;

const NEVER: TermMatcher = { test: () => false };

/**
 * Compiles literal terms into one matcher. Empty terms are ignored: they would match any text.
 */
export function compileTermMatcher(terms: readonly string[], options: TermOptions): TermMatcher {
  const literals = terms.filter((term) => term.length > 0);
  if (literals.length === 0) return NEVER;
  const shortTerms = literals.every((term) => term.length <= MAX_TERM_LENGTH);
  if (literals.length <= NATIVE_MAX_TERMS && shortTerms) {
    const alternation = literals.map(escapeNative).join('|');
    const source = options.wholeWord ? `(?<![${WORD_CLASS}])(?:${alternation})(?![${WORD_CLASS}])` : alternation;
    const regex = new RegExp(source, options.caseSensitive ? 'u' : 'iu');
    return { test: (text) => regex.test(text) };
  }
  const alternation = literals.map((term) => RE2JS.quote(term)).join('|');
  const bounded = options.wholeWord ? `(?:^|[^${WORD_CLASS}])(?:${alternation})(?:$|[^${WORD_CLASS}])` : alternation;
  const source = options.caseSensitive ? bounded : `(?i)${bounded}`;
  // Compiled here only when matched here: a bank of a million terms takes seconds to compile.
  let regex: RE2JS | undefined;
  const test = (text: string) => (regex ??= RE2JS.compile(source)).test(text);
  return shortTerms && literals.length <= IN_PLACE_MAX_TERMS ? { test } : { test, offThread: source };
}

function escapeNative(term: string): string {
  return term.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
