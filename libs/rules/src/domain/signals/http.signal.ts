import type { Signal } from '../evaluation.model.js';

const DEFAULT_TIMEOUT_MS = 2_000;
/**
 * The longest a classifier is waited for (the configuration refuses more: docs/rules.md). An
 * evaluation holds one of its organization's handlers while it waits, and a shutdown lets the
 * evaluations under way end: a rule recorded before the bound existed is held to it too.
 */
export const MAX_TIMEOUT_MS = 30_000;

/**
 * The largest answer read from a classifier, which is `{"score": n}`: a larger one is refused as
 * it arrives, unparsed, and the leaf is unknown. Answers are parsed on the thread that evaluates
 * every organization's items, and parsing costs with the answer's structure: 1 MiB of nested
 * brackets took 45 ms, and one organization's classifier answering that to 2,000 calls held the
 * others' callbacks for up to 68 s (docs/benchmarks.md, "A second hunt for stalls").
 * At 16 KiB the costliest answer parses in about 0.35 ms.
 */
export const MAX_ANSWER_BYTES = 16 * 1024;

/**
 * `{url, timeoutMs?}` → the customer's own classifier score. POSTs `{input, item: {id, typeId}}`
 * through the injected (guarded) client and expects `{"score": number}`.
 */
export const httpSignal: Signal = {
  type: 'HTTP_SIGNAL',
  cost: 100,
  inputKinds: ['any'],
  async evaluate(input, args, ctx) {
    const { url, timeoutMs } = args;
    if (typeof url !== 'string' || url === '') throw new Error('HTTP_SIGNAL needs args.url, a string');
    if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs))) {
      throw new Error('HTTP_SIGNAL args.timeoutMs must be a positive number');
    }
    const answer = await ctx.postJson(
      url,
      { input, item: { id: ctx.item.id, typeId: ctx.item.typeId } },
      Math.min(timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
    );
    const score = typeof answer === 'object' && answer !== null && !Array.isArray(answer) ? (answer as { score?: unknown }).score : undefined;
    if (typeof score !== 'number' || !Number.isFinite(score)) throw new Error('HTTP_SIGNAL answer must be {"score": number}');
    return score;
  },
};
