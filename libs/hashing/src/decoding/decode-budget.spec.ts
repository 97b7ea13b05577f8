import { describe, expect, it } from 'vitest';
import { DecodeBudget } from './decode-budget.js';

/** A task held until released, recording that it started. */
function held(started: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { task: () => (started.push(name), done), release };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

describe('DecodeBudget', () => {
  it('runs decodes while their bytes fit, the next waiting one as soon as they fit again, in arrival order', async () => {
    const budget = new DecodeBudget(100);
    const started: string[] = [];
    const a = held(started, 'a');
    const b = held(started, 'b');
    const c = held(started, 'c');
    const d = held(started, 'd');
    const runs = [budget.run(60, a.task), budget.run(50, b.task), budget.run(10, c.task), budget.run(40, d.task)];
    await turn();
    // b does not fit beside a; c would, but waits behind b (no overtaking).
    expect(started).toEqual(['a']);
    expect(budget.held).toBe(60);
    a.release();
    await turn();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    expect(budget.held).toBe(100);
    b.release();
    c.release();
    d.release();
    await Promise.all(runs);
    expect(budget.held).toBe(0);
  });

  it('runs a decode larger than the whole budget alone', async () => {
    const budget = new DecodeBudget(100);
    const started: string[] = [];
    const big = held(started, 'big');
    const small = held(started, 'small');
    const runs = [budget.run(500, big.task), budget.run(1, small.task)];
    await turn();
    expect(started).toEqual(['big']);
    big.release();
    await turn();
    expect(started).toEqual(['big', 'small']);
    small.release();
    await Promise.all(runs);
  });

  it('gives the bytes back when a decode fails', async () => {
    const budget = new DecodeBudget(100);
    await expect(budget.run(80, () => Promise.reject(new Error('not an image')))).rejects.toThrow('not an image');
    expect(budget.held).toBe(0);
  });
});
