import type { Signal } from '../evaluation.model.js';
import { describe } from './term-matcher.js';

/** A user identifier (`{builtin: CREATOR}`, say) → the user's strikes within the strike window now. */
export const userStrikeCountSignal: Signal = {
  type: 'USER_STRIKE_COUNT',
  cost: 10,
  inputKinds: ['creator'],
  async evaluate(input, _args, ctx) {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new Error(`USER_STRIKE_COUNT needs a user identifier input, got ${describe(input)}`);
    }
    const { id, typeId } = input as { id?: unknown; typeId?: unknown };
    if (typeof id !== 'string' || typeof typeId !== 'string') throw new Error('USER_STRIKE_COUNT needs a user identifier input {id, typeId}');
    if (!ctx.userStrikeCount) throw new Error('USER_STRIKE_COUNT is not provided by this deployment');
    const count = await ctx.userStrikeCount({ id, typeId });
    if (typeof count !== 'number' || Number.isNaN(count)) throw new Error(`no strike count for user ${typeId}:${id}`);
    return count;
  },
};
