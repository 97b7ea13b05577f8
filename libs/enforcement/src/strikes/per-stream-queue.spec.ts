import { describe, expect, it } from 'vitest';
import { PerStreamQueue } from './per-stream-queue.js';

/** A task that runs until released, recording when it starts and ends. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    release,
    task: async () => {
      log.push(`start ${name}`);
      await released;
      log.push(`end ${name}`);
      return name;
    },
  };
}

describe('PerStreamQueue', () => {
  it('runs one key\'s tasks one after another, in order, and other keys\' at once', async () => {
    const queue = new PerStreamQueue();
    const log: string[] = [];
    const a1 = gate(log, 'a1');
    const a2 = gate(log, 'a2');
    const b1 = gate(log, 'b1');
    const results = [queue.run('a', a1.task), queue.run('a', a2.task), queue.run('b', b1.task)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start a1', 'start b1']);
    a2.release();
    b1.release();
    await results[2];
    expect(log).not.toContain('start a2');
    a1.release();
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('start a2')).toBeGreaterThan(log.indexOf('end a1'));
  });

  it('goes on with the next task after one failed, and forgets keys with nothing queued', async () => {
    const queue = new PerStreamQueue();
    const failed = queue.run('a', async () => {
      throw new Error('boom');
    });
    const next = queue.run('a', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('next');
    await new Promise((resolve) => setImmediate(resolve));
    expect((queue as unknown as { tails: Map<string, unknown> }).tails.size).toBe(0);
  });
});
