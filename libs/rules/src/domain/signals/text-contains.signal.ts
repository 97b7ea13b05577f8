import type { Signal } from '../evaluation.model.js';
import { CompileCache } from './compile-cache.js';
import { compileTermMatcher, matchTerms, requireText, type TermMatcher } from './term-matcher.js';

type Args = { readonly [key: string]: unknown };

/** Rule arguments are long-lived config objects: the matcher is found by identity first. */
const byArgs = new WeakMap<Args, TermMatcher>();
const byContent = new CompileCache<TermMatcher>(10_000);

function matcherFor(args: Args): TermMatcher {
  let matcher = byArgs.get(args);
  if (matcher === undefined) {
    const { terms, caseSensitive, wholeWord } = args;
    if (!Array.isArray(terms) || !terms.every((term): term is string => typeof term === 'string')) {
      throw new Error('TEXT_CONTAINS needs args.terms, a list of strings');
    }
    const options = { caseSensitive: caseSensitive === true, wholeWord: wholeWord === true };
    const key = `${options.caseSensitive ? 'c' : 'i'}${options.wholeWord ? 'w' : 's'}${JSON.stringify(terms)}`;
    matcher = byContent.get(key, () => compileTermMatcher(terms, options));
    byArgs.set(args, matcher);
  }
  return matcher;
}

/**
 * `{terms, caseSensitive?, wholeWord?}` → true when any term occurs in the text. Many terms, or a
 * long one, are matched on the context's regex thread, whatever the text's length, and so is any
 * list past the evaluation's in-place steps (matchTerms).
 */
export const textContainsSignal: Signal = {
  type: 'TEXT_CONTAINS',
  cost: 1,
  inputKinds: ['text'],
  evaluate(input, args, ctx) {
    const matcher = matcherFor(args);
    const text = requireText(input, 'TEXT_CONTAINS');
    return matchTerms(matcher, text, ctx);
  },
};
