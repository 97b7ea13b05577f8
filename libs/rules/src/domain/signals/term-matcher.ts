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
}

export interface TermOptions {
  readonly caseSensitive: boolean;
  /** The match must be bounded by non-word characters (or the ends of the text). */
  readonly wholeWord: boolean;
}

/** Word characters: letters (accented included), marks, digits and `_`. */
const WORD_CLASS = '\\p{L}\\p{M}\\p{N}_';

/**
 * Up to this many terms, V8's own regex engine is fastest: a plain alternation of escaped
 * literals with one-character lookarounds cannot backtrack catastrophically. Beyond it (banks
 * with thousands of terms) its cost grows with the number of terms, while RE2's DFA does not.
 */
const NATIVE_MAX_TERMS = 48;

const NEVER: TermMatcher = { test: () => false };

/**
 * Compiles literal terms into one matcher. Empty terms are ignored: they would match any text.
 */
export function compileTermMatcher(terms: readonly string[], options: TermOptions): TermMatcher {
  const literals = terms.filter((term) => term.length > 0);
  if (literals.length === 0) return NEVER;
  if (literals.length <= NATIVE_MAX_TERMS) {
    const alternation = literals.map(escapeNative).join('|');
    const source = options.wholeWord ? `(?<![${WORD_CLASS}])(?:${alternation})(?![${WORD_CLASS}])` : alternation;
    const regex = new RegExp(source, options.caseSensitive ? 'u' : 'iu');
    return { test: (text) => regex.test(text) };
  }
  const alternation = literals.map((term) => RE2JS.quote(term)).join('|');
  const source = options.wholeWord ? `(?:^|[^${WORD_CLASS}])(?:${alternation})(?:$|[^${WORD_CLASS}])` : alternation;
  const regex = RE2JS.compile(source, options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  return { test: (text) => regex.test(text) };
}

function escapeNative(term: string): string {
  return term.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
