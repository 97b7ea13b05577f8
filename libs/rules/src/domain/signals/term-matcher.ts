import { RE2JS } from 're2js';
import type { SignalType } from '#warden/catalog/contracts';
import type { SignalContext } from '../evaluation.model.js';

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
   * The pattern for the context's regex thread (SignalContext.matchRegex), where a match that may
   * cost far more than its text goes (matchTerms): RE2 syntax, or, for short terms, V8's behind
   * NATIVE_PATTERN_PREFIX. Undefined for a matcher that matches nothing.
   */
  readonly offThread?: string;
  /**
   * What matching a text of this length here may cost at most, in steps of the engine (a
   * character times the longest term); Infinity for a matcher that always goes to the regex
   * thread (more than IN_PLACE_MAX_TERMS terms, or a long one).
   */
  steps(textLength: number): number;
}

/**
 * Engine steps an evaluation (its context, one per item version evaluated) may spend on term
 * lists on its own thread; past them, its lists go to the regex thread. V8 walks, at each
 * character, as deep into the terms' shared prefixes as the text follows them: a list of `a`,
 * `ab`, `aab`, … up to 255 letters over 250 KiB of `a`s took 0.35 s of the evaluating thread
 * (about 7 ns a step at worst; 1.5 ns for terms of 128 letters or fewer), and ten such conditions
 * over four texts held a request 13.7 s (a hunt's measurements, docs/rules.md, "Evaluation").
 * A million steps are at most some 8 ms: an item of 4,000 characters meets lists of 15-letter
 * terms some sixteen times before its matches leave the thread.
 */
export const TERM_STEPS_IN_PLACE = 1024 * 1024;

/** Steps each evaluation has spent on term lists here. */
const stepsHere = new WeakMap<SignalContext, number>();

/**
 * The terms' match of `text`: on this thread while the evaluation's steps stay within
 * TERM_STEPS_IN_PLACE, else on the context's regex thread (which takes organizations in turn and
 * gives up a match past its deadline); here when the context has no regex thread.
 */
export function matchTerms(matcher: TermMatcher, text: string, ctx: SignalContext): boolean | Promise<boolean> {
  if (matcher.offThread !== undefined && ctx.matchRegex) {
    const spent = (stepsHere.get(ctx) ?? 0) + matcher.steps(text.length);
    if (spent > TERM_STEPS_IN_PLACE) return ctx.matchRegex(matcher.offThread, text);
    stepsHere.set(ctx, spent);
  }
  return matcher.test(text);
}

/**
 * Marks a pattern the regex thread compiles with V8's engine, its flags up to the `)`:
 * `(?native-iu)term1|term2`. No RE2 pattern starts so (`n` is no RE2 flag), and a customer's
 * regexes are RE2 patterns checked when applied; regex-match.worker.ts reads it.
 */
export const NATIVE_PATTERN_PREFIX = '(?native-';

export interface TermOptions {
  readonly caseSensitive: boolean;
  /** The match must be bounded by non-word characters (or the ends of the text). */
  readonly wholeWord: boolean;
}

/** Word characters: letters (accented included), marks, digits and `_`. */
const WORD_CLASS = '\\p{L}\\p{M}\\p{N}_';

/**
 * Terms none longer than MAX_TERM_LENGTH are matched by V8's own regex engine: a plain alternation
 * of short escaped literals with one-character lookarounds cannot backtrack catastrophically, and
 * V8 matches it about as a trie would (1,000 terms of 8 letters over 250 KiB: 9-14 ms; 40 letters
 * over a two-letter alphabet, the worst seen: 46 ms). RE2JS, which matched lists of 49 to 1,000
 * terms here before, has no DFA: its NFA steps every term at every character, and 1,000 terms over
 * 250 KiB held the evaluating thread for 35 s (a hunt's measurements, docs/rules.md, "Evaluation").
 *
 * Past IN_PLACE_MAX_TERMS, or with a term longer than MAX_TERM_LENGTH, a match may cost far more
 * than its text (100,000 terms: 1.3 s to compile, 0.1-0.2 s over 256 KiB; a literal of 30,000
 * characters: V8 backtracks, 3.7 s on 256 KiB), so those go to the regex thread: short terms still
 * with V8's engine (NATIVE_PATTERN_PREFIX), a long one with RE2's. Below it V8 answers here, where
 * the hop to the thread costs some 20 µs and waits behind other organizations' matches, as long as
 * the evaluation's steps stay within TERM_STEPS_IN_PLACE (matchTerms).
 */
const IN_PLACE_MAX_TERMS = 1_000;
const MAX_TERM_LENGTH = 256;

const NEVER: TermMatcher = { test: () => false, steps: () => 0 };
const ALWAYS_OFF_THREAD = () => Infinity;

/**
 * Compiles literal terms into one matcher. Empty terms are ignored: they would match any text.
 */
export function compileTermMatcher(terms: readonly string[], options: TermOptions): TermMatcher {
  const literals = terms.filter((term) => term.length > 0);
  if (literals.length === 0) return NEVER;
  const shortTerms = literals.every((term) => term.length <= MAX_TERM_LENGTH);
  if (shortTerms) {
    // Case is folded here, terms and text alike, and the engine matches case-sensitively: with the
    // `i` flag V8 no longer shares the terms' common prefixes, and 1,000 terms of 255 `a`s and a
    // letter of their own took 51 s over 16 KiB of `a`s (5 ms without it; a review's measurements).
    const fold = !options.caseSensitive;
    const alternation = [...new Set(fold ? literals.map(foldCase) : literals)].map(escapeNative).join('|');
    const source = options.wholeWord ? `(?<![${WORD_CLASS}])(?:${alternation})(?![${WORD_CLASS}])` : alternation;
    // Compiled here only when matched here: 100,000 terms take a second to compile.
    let native: RegExp | undefined;
    const test = (text: string) => (native ??= new RegExp(source, 'u')).test(fold ? foldCase(text) : text);
    // `f`: the thread folds the text first (regex-match.worker.ts).
    const offThread = `${NATIVE_PATTERN_PREFIX}${fold ? 'fu' : 'u'})${source}`;
    if (literals.length > IN_PLACE_MAX_TERMS) return { test, offThread, steps: ALWAYS_OFF_THREAD };
    const longest = literals.reduce((n, term) => Math.max(n, term.length), 0);
    return { test, offThread, steps: (textLength) => textLength * longest };
  }
  const alternation = literals.map((term) => RE2JS.quote(term)).join('|');
  const bounded = options.wholeWord ? `(?:^|[^${WORD_CLASS}])(?:${alternation})(?:$|[^${WORD_CLASS}])` : alternation;
  const source = options.caseSensitive ? bounded : `(?i)${bounded}`;
  // Compiled here only when matched here: a bank of a million terms takes seconds to compile.
  let regex: RE2JS | undefined;
  const test = (text: string) => (regex ??= RE2JS.compile(source)).test(text);
  return { test, offThread: source, steps: ALWAYS_OFF_THREAD };
}

/**
 * Case folded as the engines' case-insensitive modes nearly do (Unicode simple case folding): lower
 * case, with the final sigma as sigma. They differ on a few letters (`İ` lowers to `i` and a
 * combining dot; `ſ`, `ϐ` and their like keep their own form); regex-match.worker.ts folds alike.
 */
export function foldCase(text: string): string {
  return text.toLowerCase().replaceAll('ς', 'σ');
}

function escapeNative(term: string): string {
  return term.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
