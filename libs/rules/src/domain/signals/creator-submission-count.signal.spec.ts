import { describe, expect, it } from 'vitest';
import type { SignalContext } from '../evaluation.model.js';
import { creatorSubmissionCountSignal } from './creator-submission-count.signal.js';

describe('CREATOR_SUBMISSION_COUNT', () => {
  const calls: Array<[unknown, number]> = [];
  const ctx = {
    creatorSubmissionCount: async (creator: unknown, windowSeconds: number) => {
      calls.push([creator, windowSeconds]);
      return 7;
    },
  } as unknown as SignalContext;

  it('declares cost 10', () => {
    expect(creatorSubmissionCountSignal.cost).toBe(10);
  });

  it('asks the context for the creator count within the window', async () => {
    const count = await creatorSubmissionCountSignal.evaluate({ id: 'u1', typeId: 'user', extra: 1 }, { windowSeconds: 3600 }, ctx);
    expect(count).toBe(7);
    expect(calls).toEqual([[{ id: 'u1', typeId: 'user' }, 3600]]);
  });

  it('fails on an input that is not an item identifier, or a bad window', async () => {
    await expect(creatorSubmissionCountSignal.evaluate('u1', { windowSeconds: 60 }, ctx)).rejects.toThrow(/item identifier/);
    await expect(creatorSubmissionCountSignal.evaluate({ id: 'u1' }, { windowSeconds: 60 }, ctx)).rejects.toThrow(/item identifier/);
    await expect(creatorSubmissionCountSignal.evaluate({ id: 'u1', typeId: 'user' }, { windowSeconds: 0 }, ctx)).rejects.toThrow(/windowSeconds/);
  });

  it('propagates a failing read model', async () => {
    const failing = { creatorSubmissionCount: async () => Promise.reject(new Error('store down')) } as unknown as SignalContext;
    await expect(creatorSubmissionCountSignal.evaluate({ id: 'u1', typeId: 'user' }, { windowSeconds: 60 }, failing)).rejects.toThrow('store down');
  });
});
