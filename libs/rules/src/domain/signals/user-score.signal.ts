import type { Signal } from '../evaluation.model.js';
import { describe } from './term-matcher.js';

/** A user identifier (`{builtin: CREATOR}`, say) → the user's live score, 1 (worst) to 5 (best). */
export const userScoreSignal: Signal = {
  type: 'USER_SCORE',
  cost: 10,
  inputKinds: ['creator'],
  async evaluate(input, _args, ctx) {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new Error(`USER_SCORE needs a user identifier input, got ${describe(input)}`);
    }
    const { id, typeId } = input as { id?: unknown; typeId?: unknown };
    if (typeof id !== 'string' || typeof typeId !== 'string') throw new Error('USER_SCORE needs a user identifier input {id, typeId}');
    if (!ctx.userScore) throw new Error('USER_SCORE is not available in this deployment');
    const score = await ctx.userScore({ id, typeId });
    if (typeof score !== 'number' || !Number.isFinite(score)) throw new Error('the user score is not a number');
    return score;
  },
};
