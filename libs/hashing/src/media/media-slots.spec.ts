import { describe, expect, it } from 'vitest';
import { MediaSlots } from './media-slots.js';

/** A task that runs until released, noting when it started. */
function gate(started: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { task: () => (started.push(name), done), release: () => release() };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('MediaSlots', () => {
  it('runs at most its size at once, and hands a freed slot to the organizations waiting in turn', async () => {
    const slots = new MediaSlots(2);
    const started: string[] = [];
    const a = Array.from({ length: 5 }, (_, i) => gate(started, `a${i}`));
    const b = Array.from({ length: 2 }, (_, i) => gate(started, `b${i}`));
    const runs = [...a.map((g) => slots.run('a', g.task)), ...b.map((g) => slots.run('b', g.task))];
    await settle();
    expect(started).toEqual(['a0', 'a1']);
    expect(slots.inUse).toBe(2);

    // a queued three more before b queued: still, after one more of a's, b's first goes, then they alternate.
    a[0]!.release();
    await settle();
    expect(started).toEqual(['a0', 'a1', 'a2']);
    a[1]!.release();
    await settle();
    expect(started).toEqual(['a0', 'a1', 'a2', 'b0']);
    a[2]!.release();
    await settle();
    expect(started).toEqual(['a0', 'a1', 'a2', 'b0', 'a3']);
    b[0]!.release();
    await settle();
    expect(started).toEqual(['a0', 'a1', 'a2', 'b0', 'a3', 'b1']);
    for (const g of [...a, ...b]) g.release();
    await Promise.all(runs);
    expect(slots.inUse).toBe(0);
  });

  it('frees the slot of a task that fails', async () => {
    const slots = new MediaSlots(1);
    await expect(slots.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.run('a', () => Promise.resolve(7))).toBe(7);
    expect(slots.inUse).toBe(0);
  });
});
