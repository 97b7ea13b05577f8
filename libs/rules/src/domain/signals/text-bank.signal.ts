import { hash } from 'node:crypto';
import { RE2JS } from 're2js';
import type { TextBankDefinition } from '#warden/catalog/contracts';
import type { Signal, SignalContext } from '../evaluation.model.js';
import { CompileCache } from './compile-cache.js';
import { compileTermMatcher, matchTerms, requireText, type TermMatcher } from './term-matcher.js';
import { matchOffThread } from './text-matches-regex.signal.js';

interface CompiledBank {
  readonly terms: TermMatcher;
  /** One combined pattern when RE2 accepts it, else each pattern on its own. */
  readonly regexes: readonly RE2JS[];
  /** Their sources, for texts matched off the evaluating thread. */
  readonly patterns: readonly string[];
  readonly error?: string;
}

/** Catalog snapshots hand out the same bank object while it is unchanged. */
const byObject = new WeakMap<TextBankDefinition, CompiledBank>();
/** Keyed by bank id and a content hash, so an edited bank is recompiled. */
const byContent = new CompileCache<CompiledBank>(1_000);

function compiledBank(bank: TextBankDefinition): CompiledBank {
  let compiled = byObject.get(bank);
  if (compiled === undefined) {
    const digest = hash('sha256', JSON.stringify([bank.terms, bank.regexes]), 'base64');
    compiled = byContent.get(`${bank.id}\u0000${digest}`, () => compileBank(bank));
    byObject.set(bank, compiled);
  }
  return compiled;
}

function compileBank(bank: TextBankDefinition): CompiledBank {
  const terms = compileTermMatcher(bank.terms, { caseSensitive: false, wholeWord: true });
  const regexes: RE2JS[] = [];
  for (const pattern of bank.regexes) {
    try {
      regexes.push(RE2JS.compile(pattern));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { terms, regexes: [], patterns: [], error: `text bank ${bank.id} has an invalid regular expression: ${message}` };
    }
  }
  if (regexes.length > 1) {
    try {
      const combined = bank.regexes.map((pattern) => `(?:${pattern})`).join('|');
      return { terms, regexes: [RE2JS.compile(combined)], patterns: [combined] };
    } catch {
      // Too large combined: match them one by one.
    }
  }
  return { terms, regexes, patterns: bank.regexes };
}

/**
 * `{bankId}` → true when any bank term occurs as a whole word (case-insensitive) or any bank
 * regex matches (RE2, as written: case-sensitive unless the pattern says `(?i)`). Its regexes are
 * matched off the evaluating thread past the evaluation's in-place budget, as TEXT_MATCHES_REGEX's
 * are, and so are its terms when there are very many (or a long one) whatever the text's length,
 * or past the evaluation's in-place steps (matchTerms).
 */
export const textBankSignal: Signal = {
  type: 'TEXT_BANK',
  cost: 3,
  inputKinds: ['text'],
  evaluate(input, args, ctx) {
    const bankId = args.bankId;
    if (typeof bankId !== 'string') throw new Error('TEXT_BANK needs args.bankId, a string');
    const bank = ctx.textBank(bankId);
    if (bank === undefined) throw new Error(`text bank ${bankId} does not exist`);
    const text = requireText(input, 'TEXT_BANK');
    const compiled = compiledBank(bank);
    if (compiled.error !== undefined) throw new Error(compiled.error);
    const terms = matchTerms(compiled.terms, text, ctx);
    if (typeof terms !== 'boolean') return terms.then((found) => found || regexesMatch(compiled, text, ctx));
    return terms || regexesMatch(compiled, text, ctx);
  },
  explain(_input, args) {
    return { bankId: args.bankId };
  },
};

/**
 * The bank's regexes: here, within the evaluation's in-place budget (LONG_TEXT_LENGTH, charged for
 * each pattern run over the text), else on the context's regex thread.
 */
function regexesMatch(compiled: CompiledBank, text: string, ctx: SignalContext): boolean | Promise<boolean> {
  if (compiled.regexes.length === 0) return false;
  if (ctx.matchRegex && matchOffThread(ctx, text.length * compiled.regexes.length)) return anyMatches(compiled.patterns, text, ctx.matchRegex);
  return compiled.regexes.some((regex) => regex.test(text));
}

async function anyMatches(patterns: readonly string[], text: string, match: (pattern: string, text: string) => Promise<boolean>): Promise<boolean> {
  for (const pattern of patterns) if (await match(pattern, text)) return true;
  return false;
}
