import { describe, expect, it } from 'vitest';
import type { SignalContext } from '../evaluation.model.js';
import { httpSignal } from './http.signal.js';

function contextAnswering(answer: unknown) {
  const posts: Array<{ url: string; body: unknown; timeoutMs: number }> = [];
  const ctx = {
    item: { id: 'p1', typeId: 'post' },
    postJson: async (url: string, body: unknown, timeoutMs: number) => {
      posts.push({ url, body, timeoutMs });
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as SignalContext;
  return { ctx, posts };
}

describe('HTTP_SIGNAL', () => {
  it('declares cost 100', () => {
    expect(httpSignal.cost).toBe(100);
  });

  it('posts the input and item and returns the score', async () => {
    const { ctx, posts } = contextAnswering({ score: 0.87 });
    expect(await httpSignal.evaluate('some text', { url: 'https://classifier.example/score' }, ctx)).toBe(0.87);
    expect(posts).toEqual([{ url: 'https://classifier.example/score', body: { input: 'some text', item: { id: 'p1', typeId: 'post' } }, timeoutMs: 2000 }]);
  });

  it('passes a configured timeout', async () => {
    const { ctx, posts } = contextAnswering({ score: 1 });
    await httpSignal.evaluate('x', { url: 'https://c.example', timeoutMs: 500 }, ctx);
    expect(posts[0]?.timeoutMs).toBe(500);
  });

  it('waits 30 s at most, whatever a rule recorded before the configuration bounded timeoutMs says', async () => {
    const { ctx, posts } = contextAnswering({ score: 1 });
    await httpSignal.evaluate('x', { url: 'https://c.example', timeoutMs: 600_000 }, ctx);
    expect(posts[0]?.timeoutMs).toBe(30_000);
  });

  it.each([[{}], [{ score: '0.5' }], [null], [[1]], [{ score: Number.NaN }]])('fails on a malformed answer %j', async (answer) => {
    const { ctx } = contextAnswering(answer);
    await expect(httpSignal.evaluate('x', { url: 'https://c.example' }, ctx)).rejects.toThrow(/score/);
  });

  it('fails when the call fails', async () => {
    const { ctx } = contextAnswering(new Error('timeout'));
    await expect(httpSignal.evaluate('x', { url: 'https://c.example' }, ctx)).rejects.toThrow('timeout');
  });
});
