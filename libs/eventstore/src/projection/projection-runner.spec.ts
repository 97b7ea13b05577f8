import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { streamName } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import type { EventStore } from '../event-store.port.js';
import type { Projection } from './projection.js';
import { ProjectionRunner, rebuildReadModels } from './projection-runner.js';

/** Counts events per stream: double application would show as a wrong count. */
function counter(failOn?: (n: number) => boolean): Projection {
  return {
    name: 'counter',
    collections: ['counts'],
    eventTypes: ['Counted'],
    async apply(event, ctx) {
      const doc = (await ctx.get<{ n: number; sum: number }>('counts', event.streamName)) ?? { n: 0, sum: 0 };
      const n = doc.n + 1;
      if (failOn?.(n)) throw new Error('projection bug');
      ctx.put('counts', event.streamName, { n, sum: doc.sum + (event.data['v'] as number) });
    },
  };
}

const s = (id: string) => streamName('counted', id);

/** An at-least-once store at its worst: every subscription starts again from the beginning of the log. */
function redelivering(events: EventStore): EventStore {
  return new Proxy(events, {
    get(target, property, receiver) {
      if (property === 'subscribeToAll') return (options: Parameters<EventStore['subscribeToAll']>[0]) => target.subscribeToAll({ ...options, after: 0 });
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The log with a count of the subscriptions open on it (opened and not yet stopped). */
function counting(events: EventStore): { events: EventStore; open: () => number } {
  let open = 0;
  const counted = new Proxy(events, {
    get(target, property, receiver) {
      if (property === 'subscribeToAll') {
        return (options: Parameters<EventStore['subscribeToAll']>[0]) => {
          const subscription = target.subscribeToAll(options);
          open++;
          let stopped = false;
          return {
            stop: async () => {
              if (!stopped) open--;
              stopped = true;
              await subscription.stop();
            },
          };
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { events: counted, open: () => open };
}

/** The read store with its checkpoint reads held back from the `nth` on (1-based) until `release()`. */
function holdingCheckpoints(store: ReadStore, nth: number) {
  let reads = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held: Promise<number> | undefined;
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'checkpoint') {
        return (name: string) => {
          reads++;
          if (reads < nth || held) return target.checkpoint(name);
          held = released.then(() => target.checkpoint(name));
          return held;
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: proxy, reads: () => reads, held: () => held, release };
}

describe('ProjectionRunner', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  it('applies live events once and stores the checkpoint with the read model', async () => {
    stores = sqliteStores();
    await stores.events.append(s('a'), [anEvent('Counted', { v: 1 }), anEvent('Other')], 'no_stream');
    const runner = new ProjectionRunner(counter(), stores.events, stores.readStore);
    await runner.start();
    await stores.events.append(s('a'), [anEvent('Counted', { v: 2 })], 1);
    await stores.events.append(s('b'), [anEvent('Counted', { v: 5 })], 'no_stream');
    const head = await stores.events.headPosition();
    await waitFor(() => runner.checkpoint === head, `the checkpoint at the head, ${head}`);
    await runner.stop();
    expect(await stores.readStore.get('counts', s('a'))).toEqual({ n: 2, sum: 3 });
    expect(await stores.readStore.get('counts', s('b'))).toEqual({ n: 1, sum: 5 });
    expect(await stores.readStore.checkpoint('counter')).toBe(head);
  });

  it('tells a caller when its own subscription has brought the read model up to a position, or that it will not', async () => {
    stores = sqliteStores();
    const runner = new ProjectionRunner(counter(), stores.events, stores.readStore);
    // Not following the log (never started): the caller must catch up itself.
    expect(runner.following).toBe(false);
    expect(await runner.reached(1, 10_000)).toBe(false);
    await runner.start();
    expect(runner.following).toBe(true);
    const head = await stores.events.headPosition();
    // Waiting for a position beyond the next event's: not released by it.
    const beyond = runner.reached(head + 2, 300);
    const { position } = await stores.events.append(s('a'), [anEvent('Counted', { v: 7 })], 'no_stream');
    const waiting = runner.reached(position, 10_000);
    expect(await waiting).toBe(true);
    expect(await beyond).toBe(false);
    // Reached means committed: the document is there, with nothing caught up by the caller.
    expect(await stores.readStore.get('counts', s('a'))).toEqual({ n: 1, sum: 7 });
    expect(await runner.reached(position, 10_000)).toBe(true);
    // A position the log has not reached: false after the wait, or as soon as the runner stops.
    expect(await runner.reached(position + 1000, 50)).toBe(false);
    const pending = runner.reached(position + 1000, 60_000);
    await runner.stop();
    expect(await pending).toBe(false);
    expect(runner.following).toBe(false);
  });

  it('lets those waiting for its progress go at once when it restarts after an error (they catch up by themselves)', async () => {
    stores = sqliteStores();
    const runner = new ProjectionRunner(
      counter((n) => n === 1),
      stores.events,
      stores.readStore,
    );
    await runner.start();
    const { position } = await stores.events.append(s('a'), [anEvent('Counted', { v: 1 })], 'no_stream');
    // Released by the restart, not by its own wait, which outlasts the test's time limit.
    expect(await runner.reached(position, 600_000)).toBe(false);
    await runner.stop();
  });

  it('moves its checkpoint past events of other types it is never handed, and stores it at stop', async () => {
    stores = sqliteStores();
    await stores.events.append(s('a'), [anEvent('Counted', { v: 1 })], 'no_stream');
    const runner = new ProjectionRunner(counter(), stores.events, stores.readStore);
    await runner.start();
    await stores.events.append(
      s('z'),
      Array.from({ length: 700 }, () => anEvent('Other')),
      'no_stream',
    );
    const head = await stores.events.headPosition();
    await waitFor(() => runner.checkpoint === head, `the checkpoint at the head, ${head}`);
    await runner.stop();
    expect(await stores.readStore.checkpoint('counter')).toBe(head);
    expect(await stores.readStore.get('counts', s('a'))).toEqual({ n: 1, sum: 1 });
  });

  it('reads, at its next catch-up, only what was appended since the last one, when nothing after its last event was of its types (a catch-up on a request, not following the log)', async () => {
    stores = sqliteStores();
    await stores.events.append(s('a'), [anEvent('Counted', { v: 1 })], 'no_stream');
    // Another module's events: the counter reads none of them.
    for (let i = 0; i < 20; i++) await stores.events.append(streamName('other', `o${i}`), [anEvent('Other', {})], 'no_stream');
    const head = await stores.events.headPosition();
    const reads: number[] = [];
    const recording = new Proxy(stores.events, {
      get(target, property, receiver) {
        if (property === 'readAll') return (options: Parameters<EventStore['readAll']>[0]) => (reads.push(options?.after ?? 0), target.readAll(options));
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const runner = new ProjectionRunner(counter(), recording, stores.readStore);
    await runner.catchUp();
    reads.length = 0;
    await runner.catchUp();
    // Before, it read again from the Counted event (position 1): the 20 others scanned at every catch-up.
    expect(reads).toEqual([head]);
    await stores.events.append(s('a'), [anEvent('Counted', { v: 2 })], 'any');
    reads.length = 0;
    await runner.catchUp();
    expect(reads[0]).toBe(head);
    expect(await stores.readStore.get('counts', s('a'))).toEqual({ n: 2, sum: 3 });
  });

  it('applies nothing twice when events are delivered again (at-least-once)', async () => {
    stores = sqliteStores();
    await stores.events.append(s('a'), [anEvent('Counted', { v: 1 }), anEvent('Counted', { v: 1 })], 'no_stream');
    const runner = new ProjectionRunner(counter(), redelivering(stores.events), stores.readStore);
    await runner.catchUp();
    await runner.catchUp();
    await runner.start();
    // The live subscription hands everything over again; a later event, once applied, shows it is
    // past the redelivered ones.
    await stores.events.append(s('marker'), [anEvent('Counted', { v: 0 })], 'no_stream');
    const head = await stores.events.headPosition();
    await waitFor(() => runner.checkpoint === head, `the checkpoint at the marker, ${head}`);
    await runner.stop();
    expect(await stores.readStore.get('counts', s('marker'))).toEqual({ n: 1, sum: 0 });
    // A second runner (a restart) resumes from the stored checkpoint.
    await new ProjectionRunner(counter(), stores.events, stores.readStore).catchUp();
    expect(await stores.readStore.get('counts', s('a'))).toEqual({ n: 2, sum: 2 });
  });

  it('commits nothing of a batch that fails, and resumes from the last good checkpoint', async () => {
    stores = sqliteStores();
    await stores.events.append(
      s('a'),
      [1, 2, 3].map((v) => anEvent('Counted', { v })),
      'no_stream',
    );
    await expect(
      new ProjectionRunner(
        counter((n) => n === 3),
        stores.events,
        stores.readStore,
      ).catchUp(),
    ).rejects.toThrow('projection bug');
    expect(await stores.readStore.get('counts', s('a'))).toBeUndefined();
    expect(await stores.readStore.checkpoint('counter')).toBe(0);
    await new ProjectionRunner(counter(), stores.events, stores.readStore).catchUp();
    expect(await stores.readStore.get('counts', s('a'))).toEqual({ n: 3, sum: 6 });
  });

  it('lets two runners of one projection (two processes) share the work without double counting', async () => {
    stores = sqliteStores();
    const other = stores.open();
    const { SqliteReadStore } = await import('#warden/readstore');
    const secondStore = new SqliteReadStore(other);
    const one = new ProjectionRunner(counter(), stores.events, stores.readStore);
    const two = new ProjectionRunner(counter(), stores.events, secondStore);
    await Promise.all([one.start(), two.start()]);
    for (let i = 0; i < 50; i++) await stores.events.append(s('x'), [anEvent('Counted', { v: 1 })], 'any');
    const head = await stores.events.headPosition();
    await waitFor(() => one.checkpoint === head && two.checkpoint === head, `both runners' checkpoints at the head, ${head}`);
    await Promise.all([one.stop(), two.stop()]);
    expect(await stores.readStore.get('counts', s('x'))).toEqual({ n: 50, sum: 50 });
  });

  it('leaves every read model identical when the whole log is replayed twice', async () => {
    stores = sqliteStores();
    for (let i = 0; i < 30; i++) {
      await stores.events.append(s(`k${i % 7}`), [anEvent('Counted', { v: i })], 'any');
    }
    const dump = async () => JSON.stringify(await stores.readStore.find('counts', {}, { sort: [{ field: 'n', direction: 'asc' }] }));
    const runner = new ProjectionRunner(counter(), stores.events, stores.readStore);
    await runner.catchUp();
    const live = await dump();
    await rebuildReadModels([counter()], stores.events, stores.readStore);
    const first = await dump();
    await rebuildReadModels([counter()], stores.events, stores.readStore);
    expect(first).toBe(live);
    expect(await dump()).toBe(first);
    expect(JSON.parse(first)).toHaveLength(7);
  });

  it('never follows the log twice when it is stopped and started again while a restart after an error is on its way', async () => {
    // A reactor whose lease is lost and taken back (a blocked loop) while its runner waits to
    // restart after a failed batch: the old restart went on to subscribe beside the new run, and
    // that second subscription outlived every later stop (handling events with no lease).
    stores = sqliteStores();
    const log = counting(stores.events);
    // Checkpoint reads: 1 the first start, 2 the restart after the failure (held), 3 the second start.
    const reads = holdingCheckpoints(stores.readStore, 2);
    let failures = 0;
    const failingOnce: Projection = {
      ...counter(),
      apply: (event, ctx) => {
        if (failures++ === 0) throw new Error('projection bug');
        return counter().apply(event, ctx);
      },
    };
    const runner = new ProjectionRunner(failingOnce, log.events, reads.store);
    await runner.start();
    await stores.events.append(s('a'), [anEvent('Counted', { v: 1 })], 'no_stream');
    await waitFor(() => reads.held() !== undefined, 'the restart reading the checkpoint');
    await runner.stop();
    await runner.start();
    expect(log.open()).toBe(1);
    reads.release();
    // The old restart's read answered: whatever it does next has run before this continues.
    await reads.held();
    expect(log.open()).toBe(1);
    const head = await stores.events.headPosition();
    await waitFor(() => runner.checkpoint === head, `the checkpoint at the head, ${head}`);
    expect(await stores.readStore.get('counts', s('a'))).toEqual({ n: 1, sum: 1 });
    await runner.stop();
    expect(log.open()).toBe(0);
  });

  it('does not follow the log when stopped before its start has read the checkpoint', async () => {
    stores = sqliteStores();
    const log = counting(stores.events);
    const reads = holdingCheckpoints(stores.readStore, 1);
    const runner = new ProjectionRunner(counter(), log.events, reads.store);
    const starting = runner.start();
    await waitFor(() => reads.held() !== undefined, 'the start reading the checkpoint');
    await runner.stop();
    reads.release();
    await starting;
    expect(runner.following).toBe(false);
    expect(log.open()).toBe(0);
  });
});
