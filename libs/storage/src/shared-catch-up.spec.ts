import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait-for.js';
import { SharedCatchUp } from './shared-catch-up.js';

/** A catch-up the test finishes by hand. */
function controlled() {
  const pending: Array<() => void> = [];
  let started = 0;
  const catchUp = () =>
    new Promise<void>((resolve) => {
      started++;
      pending.push(resolve);
    });
  return { catchUp, started: () => started, finishNext: () => pending.shift()!() };
}

describe('a catch-up shared by concurrent callers', () => {
  it('runs one at a time: callers arriving meanwhile share the single next one', async () => {
    const c = controlled();
    const shared = new SharedCatchUp(c.catchUp);
    const first = shared.run();
    const waiting = Array.from({ length: 50 }, () => shared.run());
    expect(c.started()).toBe(1);
    c.finishNext();
    await first;
    await waitFor(() => c.started() === 2, 'the next catch-up to start');
    c.finishNext();
    await Promise.all(waiting);
    expect(c.started()).toBe(2);
    const later = shared.run();
    expect(c.started()).toBe(3);
    c.finishNext();
    await later;
  });

  it('goes on after a catch-up fails, failing only its own callers', async () => {
    let calls = 0;
    const shared = new SharedCatchUp(async () => {
      calls++;
      if (calls === 1) throw new Error('log unavailable');
    });
    const failed = shared.run();
    const next = shared.run();
    await expect(failed).rejects.toThrow('log unavailable');
    await expect(next).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
