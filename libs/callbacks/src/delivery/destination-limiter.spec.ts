import { describe, expect, it } from 'vitest';
import { DestinationLimiter } from './destination-limiter.js';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

/** A one-slot limiter whose task named `first` holds the slot until `gate` opens; `started` records the order of the others. */
function oneSlotBehindFirst() {
  const limiter = new DestinationLimiter(1);
  const gate = deferred();
  const started: string[] = [];
  const task = (name: string) => async () => {
    started.push(name);
    if (name === 'first') await gate.promise;
  };
  return { limiter, gate, started, task };
}

describe('destination limiter', () => {
  it('lets at most N requests run per destination and queues the rest in order', async () => {
    const limiter = new DestinationLimiter(2);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      limiter.run('https://a.example', async () => {
        started.push(i);
        await g.promise;
        return i;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    expect(limiter.waiting('https://a.example')).toBe(1);
    gates[1]!.resolve();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(limiter.inFlight('https://a.example')).toBe(0);
  });

  it('never makes one destination wait for another that hangs', async () => {
    const limiter = new DestinationLimiter(1);
    const hang = deferred();
    const hanging = limiter.run('https://dead.example', () => hang.promise);
    void limiter.run('https://dead.example', () => hang.promise);
    expect(await limiter.run('https://alive.example', async () => 'done')).toBe('done');
    expect(limiter.waiting('https://dead.example')).toBe(1);
    hang.resolve();
    await hanging;
  });

  it('frees the slot when a task throws', async () => {
    const limiter = new DestinationLimiter(1);
    await expect(limiter.run('x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run('x', async () => 1)).toBe(1);
  });

  it("lets groups take turns for a destination's slots: one group's queue goes in order, behind other groups' waiters", async () => {
    const { limiter, gate, started, task } = oneSlotBehindFirst();
    const runs = [limiter.run('d', task('first'), { org: 'o', group: 'flood' })];
    for (let i = 0; i < 4; i++) runs.push(limiter.run('d', task(`flood${i}`), { org: 'o', group: 'flood' }));
    runs.push(limiter.run('d', task('alice'), { org: 'o', group: 'alice' }), limiter.run('d', task('bob'), { org: 'o', group: 'bob' }));
    expect(limiter.waiting('d')).toBe(6);
    gate.resolve();
    await Promise.all(runs);
    expect(started).toEqual(['first', 'flood0', 'alice', 'bob', 'flood1', 'flood2', 'flood3']);
    expect(limiter.waiting('d')).toBe(0);
    expect(limiter.inFlight('d')).toBe(0);
  });

  it('lets organizations take turns first: a burst over many users of one organization, another organization every other slot', async () => {
    const { limiter, gate, started, task } = oneSlotBehindFirst();
    const runs = [limiter.run('d', task('first'), { org: 'burst', group: 'u0' })];
    for (let i = 1; i <= 4; i++) runs.push(limiter.run('d', task(`burst-u${i}`), { org: 'burst', group: `u${i}` }));
    runs.push(limiter.run('d', task('other-a'), { org: 'other', group: 'a' }), limiter.run('d', task('other-b'), { org: 'other', group: 'b' }));
    runs.push(limiter.run('d', task('solo')));
    gate.resolve();
    await Promise.all(runs);
    expect(started).toEqual(['first', 'burst-u1', 'other-a', 'solo', 'burst-u2', 'other-b', 'burst-u3', 'burst-u4']);
  });
});
