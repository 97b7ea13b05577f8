import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#warden/kernel';
import { DEFAULT_KEYED_LIMITS, type KeyedLimits, KeyedScheduler } from './keyed-scheduler.js';
import { orderingKey } from './projection.js';

function recorded(position: number, key: string, orgId = 'acme'): RecordedEvent {
  return {
    id: `e${position}`,
    type: 'Happened',
    data: { key },
    streamName: `thing-${key}`,
    revision: 0,
    position,
    metadata: { orgId, correlationId: 'c', causationId: null, actor: 'test', occurredAt: new Date(0).toISOString(), schemaVersion: 1 },
  };
}

/** Lets the handlers' settled promises run on. */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A scheduler whose handlers wait until the test finishes (or fails) them, over a log the test
 * writes; `pass` re-reads the log as KeyedSession does.
 */
function harness(limits: Partial<KeyedLimits> = {}, groupOf?: (e: RecordedEvent) => string) {
  const log: RecordedEvent[] = [];
  const started: number[] = [];
  const finished: number[] = [];
  const gates = new Map<number, { finish: () => void; fail: (error: Error) => void }>();
  let maxHeld = 0;
  const scheduler: KeyedScheduler = new KeyedScheduler({
    keyOf: (e) => orderingKey(e, String(e.data['key'])),
    ...(groupOf ? { groupOf } : {}),
    // A run of one key's events is handled one event after the other, each behind its gate.
    handle: async (events) => {
      for (const event of events) {
        started.push(event.position);
        maxHeld = Math.max(maxHeld, scheduler.held);
        await new Promise<void>((resolve, reject) => {
          gates.set(event.position, {
            finish: () => {
              finished.push(event.position);
              resolve();
            },
            fail: reject,
          });
        });
      }
    },
    eventTypes: ['Happened'],
    after: 0,
    limits: { ...DEFAULT_KEYED_LIMITS, ...limits },
    onChange: () => undefined,
  });
  return {
    scheduler,
    log,
    started,
    finished,
    maxHeld: () => maxHeld,
    /** Appends to the log and offers the new events to the scheduler, as the reader would. */
    write(...events: RecordedEvent[]) {
      log.push(...events);
      scheduler.offer(events, events.at(-1)!.position);
    },
    async finish(...positions: number[]) {
      for (const position of positions) {
        const gate = gates.get(position);
        if (!gate) throw new Error(`${position} is not running`);
        gates.delete(position);
        gate.finish();
        await settled();
      }
    },
    async fail(position: number, error: Error) {
      gates.get(position)!.fail(error);
      gates.delete(position);
      await settled();
    },
    running: () => [...gates.keys()].sort((a, b) => a - b),
    /** A re-read pass over the log, in batches of `batch` ('span': as many as rereadSpan says, of at most 500, as KeyedSession reads). */
    pass(batch: number | 'span' = 3) {
      let after = scheduler.rereadAfter();
      for (let reads = 0; after !== undefined; reads++) {
        if (reads > log.length) throw new Error(`a pass read ${reads} times, from ${after} again`);
        const from = after;
        const read = log.filter((e) => e.position > from).slice(0, batch === 'span' ? scheduler.rereadSpan(from, 500) : batch);
        if (read.length === 0) return;
        scheduler.redeliver(read, from);
        after = scheduler.nextRereadAfter(read.at(-1)!.position);
      }
    },
  };
}

describe('KeyedScheduler', () => {
  it("runs one key's events one at a time in log order, and other keys' at once", async () => {
    const h = harness();
    h.write(recorded(1, 'a'), recorded(2, 'b'), recorded(3, 'a'), recorded(4, 'c'), recorded(5, 'a'), recorded(6, 'b'));
    await settled();
    expect(h.running()).toEqual([1, 2, 4]);
    await h.finish(1);
    expect(h.running()).toEqual([2, 3, 4]);
    await h.finish(4, 3, 2);
    expect(h.running()).toEqual([5, 6]);
    await h.finish(6, 5);
    expect(h.started).toEqual([1, 2, 4, 3, 5, 6]);
    expect(h.scheduler.watermark).toBe(6);
  });

  it("keeps the watermark before a slow key's unfinished event while later events of other keys finish", async () => {
    const h = harness();
    h.write(recorded(1, 'slow'), ...Array.from({ length: 9 }, (_, i) => recorded(i + 2, `k${i}`)));
    await settled();
    await h.finish(...Array.from({ length: 9 }, (_, i) => i + 2));
    expect(h.finished).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(h.scheduler.watermark).toBe(0);
    // Events of other types the reader went past: the watermark may go there once all is done.
    h.scheduler.offer([], 15);
    expect(h.scheduler.watermark).toBe(0);
    await h.finish(1);
    expect(h.scheduler.watermark).toBe(15);
    expect(h.scheduler.drained).toBe(true);
  });

  it('holds no more than perKey events of a key and maxInFlight in all; the others are read again later, in order, once', async () => {
    const h = harness({ perKey: 2, maxInFlight: 4, concurrency: 8 });
    h.write(...Array.from({ length: 8 }, (_, i) => recorded(i + 1, 'hot')), recorded(9, 'x'), recorded(10, 'y'), recorded(11, 'z'), recorded(12, 'hot'));
    await settled();
    expect(h.scheduler.held).toBe(4);
    expect(h.scheduler.deferred).toBe(8);
    // The hot key holds two; the later keys are not stuck behind its deferred events.
    expect(h.running()).toEqual([1, 9, 10]);
    // A pass before anything finished takes nothing (and reads nothing).
    h.pass();
    expect(h.scheduler.held).toBe(4);
    while (h.finished.length < 12) {
      const [next] = h.running();
      await h.finish(next!);
      h.pass();
    }
    expect(h.finished.filter((p) => p <= 8 || p === 12)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 12]);
    expect(new Set(h.started).size).toBe(h.started.length);
    expect(h.maxHeld()).toBeLessThanOrEqual(4);
    expect(h.scheduler.watermark).toBe(12);
  });

  it('takes an organization below its fair share past a full budget, and starts organizations in turn', async () => {
    const h = harness({ perKey: 2, maxInFlight: 4, concurrency: 1 });
    h.write(...Array.from({ length: 20 }, (_, i) => recorded(i + 1, `a${i}`, 'org-a')));
    h.write(recorded(21, 'b0', 'org-b'), recorded(22, 'b1', 'org-b'), recorded(23, 'b2', 'org-b'));
    await settled();
    // org-a filled the budget; org-b still got its share (two of the four).
    expect(h.scheduler.held).toBe(6);
    expect(h.running()).toEqual([1]);
    await h.finish(1);
    await h.finish(...h.running());
    await h.finish(...h.running());
    await h.finish(...h.running());
    expect(h.started).toEqual([1, 2, 21, 3, 22]);
    h.pass();
    while (h.finished.length < 23) {
      await h.finish(...h.running());
      h.pass();
    }
    expect(h.finished.filter((p) => p > 20)).toEqual([21, 22, 23]);
    expect(h.scheduler.watermark).toBe(23);
  });

  it("lets groups take turns within an organization: one group's many keys wait behind each other, not other groups'", async () => {
    // Ten items of one user (keys f0…f9), then one item each of two other users.
    const userOf = (e: RecordedEvent) => (String(e.data['key']).startsWith('f') ? 'flooder' : String(e.data['key']));
    const events = [...Array.from({ length: 10 }, (_, i) => recorded(i + 1, `f${i}`)), recorded(11, 'u1'), recorded(12, 'u2')];
    const grouped = harness({ concurrency: 1 }, userOf);
    grouped.write(...events);
    while (grouped.finished.length < 12) await grouped.finish(...grouped.running());
    expect(grouped.started).toEqual([1, 2, 11, 12, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Each key its own group (no groupOf): the other users wait for every item before theirs.
    const ungrouped = harness({ concurrency: 1 });
    ungrouped.write(...events);
    while (ungrouped.finished.length < 12) await ungrouped.finish(...ungrouped.running());
    expect(ungrouped.started).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('runs at most perGroup keys of one group at once, leaving the other handlers to other groups', async () => {
    const userOf = (e: RecordedEvent) => (String(e.data['key']).startsWith('f') ? 'flooder' : String(e.data['key']));
    const h = harness({ concurrency: 4, perGroup: 2 }, userOf);
    h.write(...Array.from({ length: 6 }, (_, i) => recorded(i + 1, `f${i}`)));
    await settled();
    // Two of the flood run; two handlers stay free although four flood keys wait.
    expect(h.running()).toEqual([1, 2]);
    h.write(recorded(7, 'u1'), recorded(8, 'u2'));
    await settled();
    expect(h.running()).toEqual([1, 2, 7, 8]);
    // A flood key's end frees its group's place: the next flood key takes it.
    await h.finish(1);
    expect(h.running()).toEqual([2, 3, 7, 8]);
    await h.finish(7, 8);
    expect(h.running()).toEqual([2, 3]);
    while (h.finished.length < 8) await h.finish(...h.running());
    expect(h.started).toEqual([1, 2, 7, 8, 3, 4, 5, 6]);
    expect(h.scheduler.watermark).toBe(8);
  });

  it('runs at most perOrg keys of one organization at once: handlers that never end leave the others to other organizations', async () => {
    const h = harness({ concurrency: 4, perOrg: 3 });
    // Organization a's handlers wait on something that does not answer (a classifier, media).
    h.write(...Array.from({ length: 6 }, (_, i) => recorded(i + 1, `a${i}`, 'org-a')));
    await settled();
    expect(h.running()).toEqual([1, 2, 3]);
    h.write(recorded(7, 'b0', 'org-b'), recorded(8, 'b1', 'org-b'));
    await settled();
    expect(h.running()).toEqual([1, 2, 3, 7]);
    await h.finish(7);
    expect(h.running()).toEqual([1, 2, 3, 8]);
    await h.finish(8);
    // The free handler stays free for other organizations while a's three run.
    expect(h.running()).toEqual([1, 2, 3]);
    await h.finish(1);
    expect(h.running()).toEqual([2, 3, 4]);
    while (h.finished.length < 8) await h.finish(...h.running());
    expect(h.started).toEqual([1, 2, 3, 7, 8, 4, 5, 6]);
    expect(h.scheduler.watermark).toBe(8);
  });

  it('halts on a failed handler and never moves the watermark past its event', async () => {
    const h = harness({ concurrency: 2 });
    h.write(recorded(1, 'a'), recorded(2, 'b'), recorded(3, 'c'), recorded(4, 'a'));
    await settled();
    await h.finish(1);
    await h.fail(2, new Error('handler bug'));
    expect(h.scheduler.failure?.error).toEqual(new Error('handler bug'));
    // What runs finishes; nothing more starts (4 waits).
    expect(h.running()).toEqual([3]);
    await h.finish(3);
    expect(h.running()).toEqual([]);
    await h.scheduler.idle();
    expect(h.started).toEqual([1, 2, 3]);
    expect(h.scheduler.watermark).toBe(1);
  });

  it('is full once the window holds its size of events past the watermark', async () => {
    const h = harness({ window: 5 });
    h.write(...Array.from({ length: 4 }, (_, i) => recorded(i + 1, 'a')));
    expect(h.scheduler.full).toBe(false);
    h.write(recorded(5, 'b'));
    expect(h.scheduler.full).toBe(true);
    await settled();
    await h.finish(5);
    // Done, yet behind the unfinished first event: still in the window (until half a window of them is merged into a run).
    expect(h.scheduler.full).toBe(true);
    await h.finish(1);
    expect(h.scheduler.full).toBe(false);
  });

  it("merges the events done behind an unfinished one into runs: one key's event left unfinished while many others finish keeps the reader from no organization's events", async () => {
    const h = harness({ window: 8, concurrency: 4 });
    // One user's item waiting for its turn behind thousands of others' (or on a slow classifier).
    h.write(recorded(1, 'slow', 'big'));
    let position = 1;
    for (let round = 0; round < 10; round++) {
      h.write(...Array.from({ length: 4 }, () => recorded(++position, `k${position}`, 'big')));
      await settled();
      while (h.running().length > 1) await h.finish(...h.running().filter((p) => p !== 1));
      // Done one by one, they filled the window after two rounds, and the reader waited.
      expect(h.scheduler.full).toBe(false);
    }
    expect(h.finished).toHaveLength(40);
    expect(h.scheduler.watermark).toBe(0);
    // Five windows of events done behind the unfinished one: another organization's event is still read and taken.
    h.write(recorded(++position, 'other', 'small'));
    await settled();
    expect(h.running()).toEqual([1, position]);
    await h.finish(position, 1);
    expect(h.scheduler.watermark).toBe(position);
    expect(h.scheduler.drained).toBe(true);
    expect(new Set(h.started).size).toBe(h.started.length);
  });

  it('reads a run as the events it stands for: a pass takes the deferred events on either side of one, each once', async () => {
    const h = harness({ window: 4, perKey: 1, concurrency: 8 });
    // Keys a and b hold one event each: their second ones (4 and 9) are deferred.
    h.write(recorded(1, 'slow'), recorded(2, 'a'), recorded(3, 'b'), recorded(4, 'a'), ...[5, 6, 7, 8].map((p) => recorded(p, `k${p}`)), recorded(9, 'b'));
    await settled();
    expect(h.scheduler.deferred).toBe(2);
    // Behind the unfinished first event: 5 to 8 merged into one run, then 2 and 3 into another.
    await h.finish(5, 6, 7, 8, 2, 3);
    const after = h.scheduler.rereadAfter();
    expect(after).toBe(3);
    // 4, the run of four, and 9: six events of the log; three of them reach 4 alone.
    expect(h.scheduler.rereadSpan(after!, 500)).toBe(6);
    expect(h.scheduler.rereadSpan(after!, 3)).toBe(1);
    h.scheduler.redeliver(h.log.filter((e) => e.position > after!).slice(0, 6), after!);
    await settled();
    expect(h.scheduler.deferred).toBe(0);
    expect(h.running()).toEqual([1, 4, 9]);
    await h.finish(4, 9, 1);
    expect(h.started).toEqual([1, 2, 3, 5, 6, 7, 8, 4, 9]);
    expect(h.scheduler.watermark).toBe(9);
    expect(h.scheduler.drained).toBe(true);
  });

  it("counts no deferred event in the window: one organization's burst past its share leaves room to read another's events", async () => {
    const h = harness({ window: 5, maxDeferred: 40, maxInFlight: 2, perKey: 1, concurrency: 8 });
    // A burst of one organization, each event a key of its own: two held (its budget), the rest deferred.
    h.write(...Array.from({ length: 6 }, (_, i) => recorded(i + 1, `burst-${i}`, 'evil')));
    await settled();
    expect(h.scheduler.held).toBe(2);
    expect(h.scheduler.deferred).toBe(4);
    // Six events past the watermark, more than the window: still room, since four are deferred.
    expect(h.scheduler.full).toBe(false);
    // Another organization's event behind the burst is read and taken at once (under its fair share).
    h.write(recorded(7, 'other-1', 'other'));
    await settled();
    expect(h.running()).toEqual([1, 2, 7]);
    // Everything is handled once, in the end, the watermark at the last event.
    while (h.finished.length < 7) {
      const [next] = h.running();
      await h.finish(next!);
      h.pass();
    }
    expect([...h.finished].sort((a, b) => a - b)).toEqual(Array.from({ length: 7 }, (_, i) => i + 1));
    expect(h.scheduler.watermark).toBe(7);
  });

  it('pauses reading once the deferred events of several organizations fill maxDeferred', async () => {
    const h = harness({ window: 50, maxDeferred: 4, maxInFlight: 1, perKey: 1, concurrency: 8 });
    // One event of each of six organizations: two held (the budget, and a newcomer's share), four deferred.
    h.write(...Array.from({ length: 6 }, (_, i) => recorded(i + 1, `k${i}`, `org-${i}`)));
    await settled();
    expect(h.scheduler.held).toBe(2);
    expect(h.scheduler.deferred).toBe(4);
    expect(h.scheduler.full).toBe(true);
  });

  it("keeps an organization's events past its part of maxDeferred as one stretch: the reader goes on to others, and the stretch's events run in order, each once", async () => {
    // maxDeferred 20: an organization leaves at most 2 deferred events in the log; its next ones join a stretch.
    const h = harness({ window: 4, maxDeferred: 20, maxInFlight: 2, perKey: 1, concurrency: 8 });
    // Keys repeat (a user's items), so order within a key is at stake inside the stretch.
    const burst = Array.from({ length: 30 }, (_, i) => recorded(i + 1, `user-${i % 4}`, 'evil'));
    h.write(...burst);
    await settled();
    expect(h.running()).toEqual([1, 2]);
    expect(h.scheduler.deferred).toBe(2);
    // 30 events read, the window 4 and the room 20: one entry stands for the 26 past the deferred ones.
    expect(h.scheduler.full).toBe(false);
    // Another organization's events after the burst are taken at once, though the stretch is unfinished.
    h.write(recorded(31, 'other-1', 'other'), recorded(32, 'other-2', 'other'));
    await settled();
    expect(h.running()).toEqual([1, 2, 31]);
    await h.finish(31);
    h.pass();
    await settled();
    expect(h.running()).toEqual([1, 2, 32]);
    await h.finish(32);
    // The watermark stays before the burst's first unfinished event.
    expect(h.scheduler.watermark).toBe(0);
    const order = new Map<string, number[]>();
    while (h.finished.length < 32) {
      h.pass();
      await settled();
      const [next] = h.running();
      if (next === undefined) throw new Error(`stalled with ${h.finished.length} done`);
      await h.finish(next);
    }
    for (const position of h.started) {
      const key = String(h.log[position - 1]!.data['key']);
      order.set(key, [...(order.get(key) ?? []), position]);
    }
    for (const [key, positions] of order) expect(positions, key).toEqual([...positions].sort((a, b) => a - b));
    expect([...h.started].sort((a, b) => a - b)).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
    expect(h.scheduler.watermark).toBe(32);
    expect(h.scheduler.drained).toBe(true);
    // The stretch closed: the organization's next events are entered one by one again.
    h.write(recorded(33, 'user-0', 'evil'));
    await settled();
    expect(h.running()).toEqual([33]);
  });

  it("goes on past a stretch's events it cannot take yet to another organization's deferred event behind them, and hands over no event of another type", async () => {
    // maxDeferred 20: an organization leaves at most 2 deferred events in the log.
    const h = harness({ window: 20, maxDeferred: 20, maxInFlight: 100, perKey: 1, concurrency: 8 });
    // evil: 1 runs, 2 and 3 deferred, 4 starts a stretch (its key has deferred events), which 6 to 8 join.
    h.write(recorded(1, 'u', 'evil'), recorded(2, 'u', 'evil'), recorded(3, 'u', 'evil'), recorded(4, 'u', 'evil'));
    h.write(recorded(5, 'b', 'other'), recorded(6, 'x', 'evil'), { ...recorded(7, 'y', 'evil'), type: 'Unwanted' }, recorded(8, 'y', 'evil'));
    // other: 9 deferred behind 5, after the stretch's events and with no entry between them and 5.
    h.write(recorded(9, 'b', 'other'));
    await settled();
    expect(h.running()).toEqual([1, 5]);
    // The stretch's first event (4) cannot be taken: its key runs 1 and has 2 and 3 deferred.
    h.pass('span');
    await settled();
    expect(h.running()).toEqual([1, 5]);
    // 9 can be taken now. From 5, the entry before it, a read of one (rereadSpan) met only the
    // stretch's 6, and the pass went back to 5 after every read.
    await h.finish(5);
    h.pass('span');
    await settled();
    expect(h.running()).toEqual([1, 9]);
    await h.finish(9);
    // A read of every type: 7, in the stretch's span, is not one of its events.
    for (let i = 0; h.finished.length < 8; i++) {
      if (i > 20) throw new Error(`stalled with ${h.finished.length} done`);
      h.pass(2);
      await settled();
      for (const position of h.running()) await h.finish(position);
    }
    expect(h.started).toEqual([1, 5, 9, 2, 3, 4, 6, 8]);
    expect(h.scheduler.watermark).toBe(9);
    expect(h.scheduler.drained).toBe(true);
  });

  it('ignores events it was offered before and events of other types', async () => {
    const h = harness();
    h.write(recorded(1, 'a'), recorded(2, 'a'));
    h.scheduler.offer([recorded(1, 'a'), recorded(2, 'a'), { ...recorded(3, 'a'), type: 'Other' }, recorded(4, 'a')], 4);
    await settled();
    await h.finish(1, 2, 4);
    expect(h.started).toEqual([1, 2, 4]);
    expect(h.scheduler.watermark).toBe(4);
  });
});
