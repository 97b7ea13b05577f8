import { describe, expect, it } from 'vitest';
import { FairSlots } from './fair-slots.js';

/** A task that runs until released, noting when it started. */
function gate(started: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { task: () => (started.push(name), done), release: () => release() };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** `count` gated tasks of `orgId` asked for now. */
function queue(slots: FairSlots, started: string[], orgId: string, count: number) {
  const gates = Array.from({ length: count }, (_, i) => gate(started, `${orgId}${i}`));
  return { gates, runs: gates.map((g) => slots.run(orgId, g.task)) };
}

/** Releases every task of `queues`, waits for them all, and checks every slot is free again. */
async function releaseAll(slots: FairSlots, ...queues: Array<ReturnType<typeof queue>>) {
  for (const g of queues.flatMap((q) => q.gates)) g.release();
  await Promise.all(queues.flatMap((q) => q.runs));
  expect(slots.inUse).toBe(0);
}

describe('FairSlots', () => {
  it('lets one organization hold at most half of the slots, so that another organization’s image starts at once', async () => {
    const slots = new FairSlots(4);
    const started: string[] = [];
    const a = queue(slots, started, 'a', 5);
    await settle();
    expect(started).toEqual(['a0', 'a1']);
    expect(slots.inUse).toBe(2);
    const b = queue(slots, started, 'b', 1);
    await settle();
    expect(started).toEqual(['a0', 'a1', 'b0']);
    await releaseAll(slots, a, b);
  });

  it('lets an organization alone take every slot but the kept ones when asked to (wholeWhenAlone), and shares them once another asks', async () => {
    const slots = new FairSlots(16, { wholeWhenAlone: true });
    const started: string[] = [];
    const a = queue(slots, started, 'a', 20);
    await settle();
    // 16 less the 2 kept for an organization holding none.
    expect(slots.inUse).toBe(14);
    const b = queue(slots, started, 'b', 10);
    await settle();
    // A kept slot at once; the other kept one stays for a third organization.
    expect(started.filter((name) => name.startsWith('b'))).toEqual(['b0']);
    // a holds over its share now (8 of 16): what it frees goes to b (the kept slots staying free).
    for (const g of a.gates.slice(0, 6)) g.release();
    await settle();
    expect(started.filter((name) => name.startsWith('b'))).toHaveLength(6);
    expect(started.filter((name) => name.startsWith('a'))).toHaveLength(14);
    await releaseAll(slots, a, b);
  });

  it('hands a freed slot to the organizations waiting in turn, each under its share', async () => {
    const slots = new FairSlots(5);
    const started: string[] = [];
    const a = queue(slots, started, 'a', 5);
    const b = queue(slots, started, 'b', 3);
    await settle();
    // a's share is 2; b takes 2 of the 3 left, the last kept for an organization holding none.
    expect(started).toEqual(['a0', 'a1', 'b0', 'b1']);
    // a waits first, but holds its share (2): b's next goes.
    b.gates[0]!.release();
    await settle();
    expect(started.at(-1)).toBe('b2');
    a.gates[0]!.release();
    await settle();
    expect(started.at(-1)).toBe('a2');
    await releaseAll(slots, a, b);
  });

  it('keeps the images of others flowing while one organization’s fetches never end (the hunt’s attack)', async () => {
    const slots = new FairSlots(16);
    const started: string[] = [];
    // 400 images whose URLs never answer (each would hold its slot until the fetch's deadline).
    const hanging = queue(slots, started, 'evil', 400);
    await settle();
    expect(slots.inUse).toBe(8);
    // Another organization's images, one after the other: each gets a slot at once.
    for (let i = 0; i < 50; i++) expect(await slots.run('other', () => Promise.resolve(i))).toBe(i);
    expect(started.filter((s) => s.startsWith('evil'))).toHaveLength(8);
    await releaseAll(slots, hanging);
  });

  it('keeps a slot for an organization holding none: a third starts at once beside two that hold theirs', async () => {
    const slots = new FairSlots(6);
    const started: string[] = [];
    const a = queue(slots, started, 'a', 6);
    const b = queue(slots, started, 'b', 6);
    await settle();
    expect(started).toEqual(['a0', 'a1', 'a2', 'b0', 'b1']);
    const c = queue(slots, started, 'c', 2);
    await settle();
    expect(started.at(-1)).toBe('c0');
    // Three organizations: a share of 2. a, down to 2, takes none; the slot it frees is the kept
    // one, which c, holding one, leaves to an organization holding none.
    a.gates[0]!.release();
    await settle();
    expect(started).toHaveLength(6);
    const d = queue(slots, started, 'd', 1);
    await settle();
    expect(started.at(-1)).toBe('d0');
    await releaseAll(slots, a, b, c, d);
  });

  it('leaves slots to a third organization while two others hold theirs until their deadlines (the second hunt)', async () => {
    const slots = new FairSlots(16);
    const started: string[] = [];
    const one = queue(slots, started, 'evil-1', 400);
    const two = queue(slots, started, 'evil-2', 400);
    await settle();
    expect(slots.inUse).toBe(14);
    for (let i = 0; i < 50; i++) expect(await slots.run('other', () => Promise.resolve(i))).toBe(i);
    await releaseAll(slots, one, two);
  });

  it('frees the slot of a task that fails', async () => {
    const slots = new FairSlots(1);
    await expect(slots.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.run('a', () => Promise.resolve(7))).toBe(7);
    expect(slots.inUse).toBe(0);
  });
});
