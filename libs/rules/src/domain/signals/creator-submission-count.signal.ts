import type { Signal } from '../evaluation.model.js';
import { describe } from './term-matcher.js';

/** `{windowSeconds}` → how many items the creator submitted within the window. */
export const creatorSubmissionCountSignal: Signal = {
  type: 'CREATOR_SUBMISSION_COUNT',
  cost: 10,
  // The count includes the item being evaluated: reused for the creator's next item, a burst would count as one.
  memoized: false,
  inputKinds: ['creator'],
  async evaluate(input, args, ctx) {
    const windowSeconds = args.windowSeconds;
    if (typeof windowSeconds !== 'number' || !(windowSeconds > 0) || !Number.isFinite(windowSeconds)) {
      throw new Error('CREATOR_SUBMISSION_COUNT needs args.windowSeconds, a positive number');
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new Error(`CREATOR_SUBMISSION_COUNT needs an item identifier input, got ${describe(input)}`);
    }
    const { id, typeId } = input as { id?: unknown; typeId?: unknown };
    if (typeof id !== 'string' || typeof typeId !== 'string') {
      throw new Error('CREATOR_SUBMISSION_COUNT needs an item identifier input {id, typeId}');
    }
    const count = await ctx.creatorSubmissionCount({ id, typeId }, windowSeconds);
    if (typeof count !== 'number' || Number.isNaN(count)) throw new Error('creator submission count is not a number');
    return count;
  },
};
