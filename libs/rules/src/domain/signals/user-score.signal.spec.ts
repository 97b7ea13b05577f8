import { describe, expect, it } from 'vitest';
import type { SignalContext } from '../evaluation.model.js';
import { userScoreSignal } from './user-score.signal.js';

describe('USER_SCORE signal', () => {
  const asked: unknown[] = [];
  const ctx = {
    userScore: async (user: unknown) => {
      asked.push(user);
      return 2;
    },
  } as unknown as SignalContext;

  it('answers the live score of the user identifier it is given, asking with exactly {id, typeId}', async () => {
    expect(userScoreSignal.cost).toBe(10);
    expect(await userScoreSignal.evaluate({ id: 'u1', typeId: 'user', extra: 1 }, {}, ctx)).toBe(2);
    expect(asked).toEqual([{ id: 'u1', typeId: 'user' }]);
  });

  it('is unknown (throws) for an input that is not a user identifier', async () => {
    await expect(userScoreSignal.evaluate('u1', {}, ctx)).rejects.toThrow(/user identifier/);
    await expect(userScoreSignal.evaluate({ id: 'u1' }, {}, ctx)).rejects.toThrow(/user identifier/);
  });

  it('is unknown (throws) where nothing answers scores, or the answer is not a number', async () => {
    await expect(userScoreSignal.evaluate({ id: 'u1', typeId: 'user' }, {}, {} as SignalContext)).rejects.toThrow(/not available/);
    const broken = { userScore: async () => Number.NaN } as unknown as SignalContext;
    await expect(userScoreSignal.evaluate({ id: 'u1', typeId: 'user' }, {}, broken)).rejects.toThrow(/not a number/);
  });
});
