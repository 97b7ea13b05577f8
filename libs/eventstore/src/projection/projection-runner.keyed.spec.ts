import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import type { RecordedEvent } from '#warden/kernel';
import { type CheckpointMove, type ReadStore, SqliteReadStore, type Write } from '#warden/readstore';
import { type EventStore, WrongExpectedRevisionError } from '../event-store.port.js';
import type { KeyedLimits } from './keyed-scheduler.js';
import { orderingKey, type Projection } from './projection.js';
import { ProjectionRunner } from './projection-runner.js';

/** A promise the test resolves. */
class Gate {
  open!: () => void;
  readonly opened = new Promise<void>((resolve) => (this.open = resolve));
}

interface Handling {
  readonly key: string;
  readonly n: number;
  readonly position: number;
}

/**
 * A keyed reactor (key `data.key`, in `data.org`'s organization) that records what it handled;
 * `hold` may keep a handler waiting (or throw), as a slow or failing command would.
 */
function recorder(options: { limits?: Partial<KeyedLimits>; hold?: (event: RecordedEvent) => Promise<void> | void } = {}) {
  const started: Handling[] = [];
  const handled: Handling[] = [];
  let running = 0;
  let maxRunning = 0;
  const handling = (e: RecordedEvent): Handling => ({ key: String(e.data['key']), n: Number(e.data['n']), position: e.position });
  const projection: Projection = {
    name: 'recorder',
    reactor: true,
    collections: [],
    eventTypes: ['Happened'],
    limits: options.limits,
    keyOf: (e) => orderingKey(e, String(e.data['key'])),
    async apply(event) {
      started.push(handling(event));
      running++;
      maxRunning = Math.max(maxRunning, running);
      try {
        // A command's asynchronous steps: the handlers of different keys interleave.
        for (let i = (event.position * 7) % 5; i > 0; i--) await new Promise((resolve) => setImmediate(resolve));
        await options.hold?.(event);
      } finally {
        running--;
      }
      handled.push(handling(event));
    },
  };
  return {
    projection,
    started,
    handled,
    maxRunning: () => maxRunning,
    handledOf: (key: string) => handled.filter((h) => h.key === key).map((h) => h.n),
  };
}

/**
 * A handler's hold that records a key's event starting while another of the same key still runs
 * (`overlaps`: must stay empty), after waiting for what `wait` returns.
 */
function overlapWatch(wait: (event: RecordedEvent) => Promise<void> | undefined) {
  const runningOf = new Map<string, number>();
  const overlaps: Handling[] = [];
  const hold = async (e: RecordedEvent) => {
    const key = String(e.data['key']);
    if ((runningOf.get(key) ?? 0) > 0) overlaps.push({ key, n: Number(e.data['n']), position: e.position });
    runningOf.set(key, (runningOf.get(key) ?? 0) + 1);
    try {
      await wait(e);
    } finally {
      runningOf.set(key, runningOf.get(key)! - 1);
    }
  };
  return { runningOf, overlaps, hold };
}

/** Appends `count` events of each key, interleaved, one append each (so their positions interleave); returns them as recorded. */
async function appendInterleaved(events: EventStore, keys: readonly string[], count: number, orgId = 'acme'): Promise<RecordedEvent[]> {
  for (let n = 0; n < count; n++) {
    for (const key of keys) await events.append(`thing-${orgId}:${key}`, [anEvent('Happened', { key, n }, orgId)], 'any');
  }
  return events.readAll({ eventTypes: ['Happened'] });
}

/** Records every checkpoint move the runner commits. */
function recordingCommits(store: ReadStore, moves: CheckpointMove[]): ReadStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'commit') return Reflect.get(target, prop, receiver) as unknown;
      return async (writes: readonly Write[], checkpoint?: CheckpointMove) => {
        await target.commit(writes, checkpoint);
        if (checkpoint) moves.push(checkpoint);
      };
    },
  });
}

describe('ProjectionRunner, keyed reactor', () => {
  let stores: ReturnType<typeof sqliteStores>;
  const runners: ProjectionRunner[] = [];
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await stores?.close();
  });
  const run = async (runner: ProjectionRunner) => {
    runners.push(runner);
    await runner.start();
    return runner;
  };

  it('refuses a keyed reactor that reads every event: its re-reads count its event types only', () => {
    stores = sqliteStores();
    const { projection } = recorder();
    for (const variant of [
      { ...projection, everyEvent: true },
      { ...projection, log: 'as-stored' as const },
    ]) {
      expect(() => new ProjectionRunner(variant, stores.events, stores.readStore)).toThrow('keyOf reads its event types only, not every event');
    }
    expect(() => new ProjectionRunner(projection, stores.events, stores.readStore)).not.toThrow();
  });

  it("handles each key's events in log order, different keys at once, each once, and stores the checkpoint at the head", async () => {
    stores = sqliteStores();
    const reactor = recorder();
    const runner = await run(new ProjectionRunner(reactor.projection, stores.events, stores.readStore));
    const keys = ['a', 'b', 'c', 'd', 'e'];
    await appendInterleaved(stores.events, keys, 40);
    const head = await stores.events.headPosition();
    await waitFor(() => runner.checkpoint === head, `the watermark at the head, ${head}`);
    for (const key of keys) expect(reactor.handledOf(key), key).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(reactor.handled).toHaveLength(200);
    expect(reactor.maxRunning()).toBeGreaterThan(1);
    await waitFor(async () => (await stores.readStore.checkpoint('recorder')) === head, 'the stored checkpoint at the head');
  });

  it("lets other keys' later events finish while one key's handler waits, and keeps the watermark before it", async () => {
    stores = sqliteStores();
    const gate = new Gate();
    const reactor = recorder({ hold: (e) => (e.data['key'] === 'slow' ? gate.opened : undefined) });
    const runner = await run(new ProjectionRunner(reactor.projection, stores.events, stores.readStore));
    const { position: slowAt } = await stores.events.append('thing-acme:slow', [anEvent('Happened', { key: 'slow', n: 0 })], 'no_stream');
    await appendInterleaved(stores.events, ['p', 'q', 'r'], 20);
    await waitFor(() => reactor.handled.length === 60, "the other keys' 60 events handled");
    expect(reactor.handledOf('slow')).toEqual([]);
    expect(runner.checkpoint).toBeLessThan(slowAt);
    expect(await runner.reached(slowAt, 10)).toBe(false);
    gate.open();
    const head = await stores.events.headPosition();
    expect(await runner.reached(head, 20_000)).toBe(true);
    expect(reactor.handledOf('slow')).toEqual([0]);
  });

  it('never stores a checkpoint past an unfinished event: a process that died with it running has it redelivered', async () => {
    stores = sqliteStores();
    const gate = new Gate();
    const first = recorder({ hold: (e) => (e.data['key'] === 'stuck' ? gate.opened : undefined) });
    await appendInterleaved(stores.events, ['a', 'b'], 5);
    const { position: stuckAt } = await stores.events.append('thing-acme:stuck', [anEvent('Happened', { key: 'stuck', n: 0 })], 'no_stream');
    await appendInterleaved(stores.events, ['c', 'd'], 5);
    const head = await stores.events.headPosition();
    // The first process: everything but the stuck event gets handled; its checkpoint stops before it.
    const dying = await run(new ProjectionRunner(first.projection, stores.events, stores.readStore));
    await waitFor(() => first.handled.length === 20, 'all but the stuck event handled');
    await waitFor(async () => (await stores.readStore.checkpoint('recorder')) === stuckAt - 1, 'the checkpoint stored up to the stuck event');
    expect(dying.checkpoint).toBe(stuckAt - 1);

    // It dies there (never stopped); a second process starts from the stored checkpoint.
    const second = recorder();
    const restarted = await run(new ProjectionRunner(second.projection, stores.events, new SqliteReadStore(stores.open())));
    await waitFor(() => restarted.checkpoint === head, `the second process at the head, ${head}`);
    expect(second.handledOf('stuck')).toEqual([0]);
    // Redelivered from the checkpoint: what came after the stuck event too (reactors are idempotent).
    const fromStuck = (await stores.events.readAll({ after: stuckAt - 1, eventTypes: ['Happened'] })).map((e) => e.position);
    expect(second.handled.map((h) => h.position).sort((x, y) => x - y)).toEqual(fromStuck);
    gate.open();
  });

  it('restarts from the checkpoint after a handler fails, never having stored it past the failed event', async () => {
    stores = sqliteStores();
    const moves: CheckpointMove[] = [];
    let failures = 0;
    let failedAt = 0;
    const reactor = recorder({
      hold: (e) => {
        if (e.data['key'] === 'b' && e.data['n'] === 3 && failures++ === 0) {
          failedAt = e.position;
          throw new Error('command failed');
        }
      },
    });
    const errors: unknown[] = [];
    const runner = await run(
      new ProjectionRunner(reactor.projection, stores.events, recordingCommits(stores.readStore, moves), { onError: (_, error) => errors.push(error) }),
    );
    await appendInterleaved(stores.events, ['a', 'b', 'c'], 10);
    const head = await stores.events.headPosition();
    await waitFor(() => moves.at(-1)?.to === head, `the checkpoint stored at the head, ${head}`);
    expect(runner.checkpoint).toBe(head);
    expect(errors).toEqual([new Error('command failed')]);
    const handledAt = reactor.handled.findIndex((h) => h.position === failedAt);
    // Every checkpoint stored before the failed event was handled stays before it.
    const storedBefore = moves.filter((m) => m.to >= failedAt);
    expect(storedBefore.length).toBeGreaterThan(0);
    expect(handledAt).toBeGreaterThanOrEqual(0);
    for (const move of moves.slice(
      0,
      moves.findIndex((m) => m.to >= failedAt),
    ))
      expect(move.to).toBeLessThan(failedAt);
    // Each key in order, every event handled at least once; b's from the failed one on, again after the restart.
    for (const key of ['a', 'b', 'c']) expect(new Set(reactor.handledOf(key)).size).toBe(10);
    const bAfterRestart = reactor.handledOf('b').slice(reactor.handledOf('b').lastIndexOf(3));
    expect(bAfterRestart).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });

  it("reads past its window while an organization's events beyond its part of maxDeferred join one stretch, and handles them all in order once", async () => {
    stores = sqliteStores();
    const gate = new Gate();
    const reactor = recorder({ limits: { perKey: 4, maxInFlight: 8, window: 40, maxDeferred: 400, concurrency: 4 }, hold: () => gate.opened });
    let delivered = 0;
    let waiting = false;
    const counting = new Proxy(stores.events, {
      get(target, prop, receiver) {
        if (prop !== 'subscribeToAll') {
          const value = Reflect.get(target, prop, receiver) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return (options: Parameters<EventStore['subscribeToAll']>[0]) =>
          target.subscribeToAll({
            ...options,
            onEvents: async (events, through) => {
              delivered += events.length;
              waiting = true;
              await options.onEvents(events, through);
              waiting = false;
            },
          });
      },
    });
    await appendInterleaved(
      stores.events,
      Array.from({ length: 10 }, (_, i) => `k${i}`),
      60,
    );
    const runner = await run(new ProjectionRunner(reactor.projection, counting, stores.readStore));
    // Four handlers run, 40 events deferred (a tenth of maxDeferred), and the other 556 make one
    // stretch: the reader got to the head without an entry per event.
    await waitFor(() => !waiting && delivered === 600 && reactor.started.length === 4, 'the whole log read, four handlers running');
    expect(reactor.maxRunning()).toBe(4);
    gate.open();
    const head = await stores.events.headPosition();
    await waitFor(() => runner.checkpoint === head, `the watermark at the head, ${head}`);
    for (let i = 0; i < 10; i++) expect(reactor.handledOf(`k${i}`)).toEqual(Array.from({ length: 60 }, (_, n) => n));
    expect(reactor.handled).toHaveLength(600);
  });

  it("lets a hot key's backlog hold up no other key: its events beyond its share are read again from the log, in order", async () => {
    stores = sqliteStores();
    const gate = new Gate();
    const reactor = recorder({ limits: { perKey: 4, maxInFlight: 16, concurrency: 8 }, hold: (e) => (e.data['key'] === 'hot' ? gate.opened : undefined) });
    const runner = await run(new ProjectionRunner(reactor.projection, stores.events, stores.readStore));
    await stores.events.append(
      'thing-acme:hot',
      Array.from({ length: 300 }, (_, n) => anEvent('Happened', { key: 'hot', n })),
      'no_stream',
    );
    await appendInterleaved(stores.events, ['x', 'y', 'z'], 30);
    await waitFor(() => reactor.handled.length === 90, "the other keys' 90 events handled behind 300 of the hot key");
    expect(reactor.started.filter((s) => s.key === 'hot')).toHaveLength(1);
    gate.open();
    const head = await stores.events.headPosition();
    await waitFor(() => runner.checkpoint === head, `the watermark at the head, ${head}`);
    expect(reactor.handledOf('hot')).toEqual(Array.from({ length: 300 }, (_, n) => n));
  });

  it("reads a hot key's held-back events again about once each, not a batch of 500 for every few it takes", async () => {
    stores = sqliteStores();
    const reactor = recorder({ limits: { perKey: 4, maxInFlight: 16, concurrency: 8 } });
    let read = 0;
    const counting = new Proxy(stores.events, {
      get(target, prop, receiver) {
        if (prop === 'readAll')
          return async (options: Parameters<EventStore['readAll']>[0]) => {
            const events = await target.readAll(options);
            read += events.length;
            return events;
          };
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    // One item posted 2,000 times: every event of one key, all but four held back at a time.
    await stores.events.append(
      'thing-acme:hot',
      Array.from({ length: 2_000 }, (_, n) => anEvent('Happened', { key: 'hot', n })),
      'no_stream',
    );
    await appendInterleaved(stores.events, ['x', 'y'], 20);
    const runner = await run(new ProjectionRunner(reactor.projection, counting, stores.readStore));
    const head = await stores.events.headPosition();
    await waitFor(() => runner.checkpoint === head, { what: `the watermark at the head, ${head}`, timeoutMs: 60_000 });
    expect(reactor.handledOf('hot')).toEqual(Array.from({ length: 2_000 }, (_, n) => n));
    // Each of the 2,040 read once as it comes, and a held-back one about once more (before: 446,741,
    // a batch of 500 read and decoded for every few of the hot key's events taken).
    expect(read).toBeLessThan(2 * 2_040);
  });

  it("starts organizations in turn: one organization's burst keeps another's events waiting for a few of its handlers, not all", async () => {
    stores = sqliteStores();
    // org-a's handlers finish one at a time, when the test lets them.
    let tickets = 0;
    const sleepers: Array<() => void> = [];
    const wake = () => {
      for (const resolve of sleepers.splice(0)) resolve();
    };
    const aDone = () => reactor.handled.filter((h) => h.key.startsWith('a')).length;
    const reactor = recorder({
      limits: { concurrency: 2, maxInFlight: 40, perKey: 4 },
      hold: async (e) => {
        if (e.metadata.orgId !== 'org-a') return;
        while (tickets === 0) await new Promise<void>((resolve) => sleepers.push(resolve));
        tickets--;
      },
    });
    for (let i = 0; i < 100; i++) await stores.events.append(`thing-org-a:a${i}`, [anEvent('Happened', { key: `a${i}`, n: 0 }, 'org-a')], 'no_stream');
    for (let i = 0; i < 5; i++) await stores.events.append(`thing-org-b:b${i}`, [anEvent('Happened', { key: `b${i}`, n: 0 }, 'org-b')], 'no_stream');
    const runner = await run(new ProjectionRunner(reactor.projection, stores.events, stores.readStore));
    await waitFor(() => reactor.started.length === 2, 'two handlers of org-a running');
    while (reactor.handled.filter((h) => h.key.startsWith('b')).length < 5) {
      const before = aDone();
      tickets++;
      wake();
      await waitFor(() => aDone() > before, 'one more of org-a handled');
    }
    // Without turns, org-b would have waited for the 40 of org-a read before it, or for all 100.
    expect(aDone()).toBeLessThanOrEqual(8);
    tickets = Number.POSITIVE_INFINITY;
    wake();
    const head = await stores.events.headPosition();
    await waitFor(() => runner.checkpoint === head, `the watermark at the head, ${head}`);
    expect(reactor.handled).toHaveLength(105);
  });

  it('changes nothing when events are handled again after a restart (a reactor guarded by expected revisions)', async () => {
    stores = sqliteStores();
    let calls = 0;
    let failed = false;
    const effects: Projection = {
      name: 'effects',
      reactor: true,
      collections: [],
      eventTypes: ['Happened'],
      keyOf: (e) => orderingKey(e, String(e.data['key'])),
      async apply(event) {
        calls++;
        try {
          await stores.events.append(`done-${event.id}`, [anEvent('Done', { of: event.id })], 'no_stream');
        } catch (error) {
          // Already done before the restart.
          if (!(error instanceof WrongExpectedRevisionError)) throw error;
        }
        if (event.data['key'] === 'c' && event.data['n'] === 9 && !failed) {
          failed = true;
          throw new Error('died after its effect, before the checkpoint');
        }
      },
    };
    const runner = await run(new ProjectionRunner(effects, stores.events, stores.readStore));
    const sources = await appendInterleaved(stores.events, ['a', 'b', 'c'], 10);
    const head = await stores.events.headPosition();
    await waitFor(async () => runner.checkpoint >= head && (await stores.events.readAll({ eventTypes: ['Done'] })).length === 30, 'every effect recorded');
    const done = await stores.events.readAll({ eventTypes: ['Done'] });
    expect(done.map((e) => e.data['of']).sort()).toEqual(sources.map((e) => e.id).sort());
    expect(failed).toBe(true);
    expect(calls).toBeGreaterThan(30);
  });

  it('catches up by itself when stopped, waits for its own progress when running, and stores where it got at stop', async () => {
    stores = sqliteStores();
    const reactor = recorder();
    await appendInterleaved(stores.events, ['a', 'b'], 10);
    const head = await stores.events.headPosition();
    const runner = new ProjectionRunner(reactor.projection, stores.events, stores.readStore);
    await runner.catchUp();
    expect(runner.checkpoint).toBe(head);
    expect(await stores.readStore.checkpoint('recorder')).toBe(head);
    expect(reactor.handled).toHaveLength(20);

    const gate = new Gate();
    const slow = recorder({ hold: () => gate.opened });
    const live = await run(new ProjectionRunner({ ...slow.projection, name: 'recorder' }, stores.events, stores.readStore));
    const { position } = await stores.events.append('thing-acme:c', [anEvent('Happened', { key: 'c', n: 0 })], 'no_stream');
    let caughtUp = false;
    const catchUp = live.catchUp().then(() => (caughtUp = true));
    await waitFor(() => slow.started.length === 1, 'the new event running');
    expect(caughtUp).toBe(false);
    gate.open();
    await catchUp;
    expect(slow.handledOf('c')).toEqual([0]);
    expect(live.checkpoint).toBe(position);
  });

  it("starts no key's event again while stopping: a catch-up asked for meanwhile waits for the handlers still running", async () => {
    stores = sqliteStores();
    const gate = new Gate();
    const { runningOf, overlaps, hold } = overlapWatch((e) => (e.data['key'] === 'slow' ? gate.opened : undefined));
    const reactor = recorder({ hold });
    const runner = await run(new ProjectionRunner(reactor.projection, stores.events, stores.readStore));
    const { position: slowAt } = await stores.events.append('thing-acme:slow', [anEvent('Happened', { key: 'slow', n: 0 })], 'no_stream');
    await waitFor(() => runningOf.get('slow') === 1, 'the slow event running');
    // A lease lost (or a shutdown) stops the runner; a reader asks for a catch-up meanwhile.
    const stopping = runner.stop();
    const catchingUp = runner.catchUp();
    // Turns enough for a catch-up that did not wait to read the log and start the slow event again.
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    const slowStarts = reactor.started.filter((s) => s.key === 'slow').length;
    gate.open();
    await stopping;
    await catchingUp;
    expect(slowStarts).toBe(1);
    expect(overlaps).toEqual([]);
    expect(runner.checkpoint).toBe(slowAt);
  });

  it('a catch-up that finds the runner stopped after it read the head catches up by itself instead of waiting for a restart', async () => {
    stores = sqliteStores();
    const reactor = recorder();
    let headRead!: () => void;
    let releaseHead!: () => void;
    const asked = new Promise<void>((resolve) => (headRead = resolve));
    const held = new Promise<void>((resolve) => (releaseHead = resolve));
    let holdHead = false;
    const slowHead = new Proxy(stores.events, {
      get(target, prop, receiver) {
        if (prop === 'headPosition')
          return async () => {
            if (holdHead) {
              holdHead = false;
              headRead();
              await held;
            }
            return target.headPosition();
          };
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const runner = await run(new ProjectionRunner(reactor.projection, slowHead, stores.readStore));
    await appendInterleaved(stores.events, ['a', 'b'], 3);
    const head = await stores.events.headPosition();
    await waitFor(() => runner.checkpoint === head, 'the watermark at the head');
    await runner.stop();
    await runner.start();
    // The catch-up asks for the head while the runner follows the log; the runner stops before the
    // answer (a new event at the head then), and no run of it is under way to get there.
    holdHead = true;
    let caughtUp = false;
    const catchingUp = runner.catchUp().then(() => (caughtUp = true));
    await asked;
    await runner.stop();
    const { position } = await stores.events.append('thing-acme:c', [anEvent('Happened', { key: 'c', n: 0 })], 'no_stream');
    releaseHead();
    await waitFor(() => caughtUp, { what: 'the catch-up done', timeoutMs: 5_000 });
    await catchingUp;
    expect(runner.checkpoint).toBe(position);
    expect(reactor.handledOf('c')).toEqual([0]);
  });

  it("runs no key's event twice at once when stopped and started again while a catch-up waited on it: the catch-up waits for the new run", async () => {
    stores = sqliteStores();
    const first = new Gate();
    const second = new Gate();
    const { runningOf, overlaps, hold } = overlapWatch((e) => (e.data['key'] === 'slow' ? (e.data['n'] === 0 ? first.opened : second.opened) : undefined));
    const reactor = recorder({ hold });
    const runner = await run(new ProjectionRunner(reactor.projection, stores.events, stores.readStore));
    await stores.events.append('thing-acme:slow', [anEvent('Happened', { key: 'slow', n: 0 })], 'no_stream');
    await stores.events.append('thing-acme:slow', [anEvent('Happened', { key: 'slow', n: 1 })], 0);
    await waitFor(() => runningOf.get('slow') === 1, 'the slow event running');
    // A catch-up waits for the run's progress; the lease is lost and taken back at once (before the
    // catch-up learns of the stop).
    const catchingUp = runner.catchUp();
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    const stopping = runner.stop();
    const starting = runner.start();
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    first.open();
    await starting;
    await waitFor(() => reactor.started.some((s) => s.key === 'slow' && s.n === 1), "the slow key's second event started");
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    const secondStarts = reactor.started.filter((s) => s.key === 'slow' && s.n === 1).length;
    second.open();
    await stopping;
    // Not a catch-up of its own beside the new run (it failed on the checkpoint the run had moved).
    await catchingUp;
    expect(overlaps).toEqual([]);
    expect(secondStarts).toBe(1);
    expect(reactor.handledOf('slow')).toEqual([0, 1]);
    expect(runner.following).toBe(true);
  });

  it('is left stopped when its checkpoint cannot be loaded at start: a catch-up then reads the log itself instead of waiting for ever', async () => {
    stores = sqliteStores();
    const reactor = recorder();
    await appendInterleaved(stores.events, ['a', 'b'], 3);
    const head = await stores.events.headPosition();
    let failLoad = true;
    const flakyStore = new Proxy(stores.readStore, {
      get(target, prop, receiver) {
        if (prop === 'checkpoint')
          return async (name: string) => {
            if (failLoad) throw new Error('the read store is busy');
            return target.checkpoint(name);
          };
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const runner = new ProjectionRunner(reactor.projection, stores.events, flakyStore);
    runners.push(runner);
    await expect(runner.start()).rejects.toThrow('the read store is busy');
    expect(runner.following).toBe(false);
    failLoad = false;
    let caughtUp = false;
    const catchingUp = runner.catchUp().then(() => (caughtUp = true));
    await waitFor(() => caughtUp, { what: 'the catch-up done', timeoutMs: 5_000 });
    await catchingUp;
    expect(runner.checkpoint).toBe(head);
    expect(reactor.handled).toHaveLength(6);
  });

  it('hands over at most one batch per turn of the event loop, however many held-back events need nothing asynchronous', async () => {
    stores = sqliteStores();
    const gate = new Gate();
    let slowStarted = 0;
    let handled = 0;
    const projection: Projection = {
      name: 'cheap',
      reactor: true,
      collections: [],
      eventTypes: ['Happened'],
      limits: { perKey: 4, maxInFlight: 8, window: 40, maxDeferred: 400, concurrency: 4 },
      keyOf: (e) => orderingKey(e, String(e.data['key'])),
      async apply(event) {
        if (String(event.data['key']).startsWith('slow')) {
          slowStarted++;
          await gate.opened;
        }
        // Else as the evaluation of a version fetched from a partial-items endpoint: nothing to wait for.
        handled++;
      },
    };
    for (let n = 0; n < 8; n++) await stores.events.append(`thing-acme:slow${n}`, [anEvent('Happened', { key: `slow${n}`, n })], 'any');
    const cheap = 3_000;
    for (let n = 0; n < cheap; n++) await stores.events.append(`thing-acme:k${n}`, [anEvent('Happened', { key: `k${n}`, n })], 'any');
    // The reader's progress: once it has offered the whole log, the cheap events wait as deferred ones.
    let offeredThrough = 0;
    const watched = new Proxy(stores.events, {
      get(target, prop, receiver) {
        if (prop === 'subscribeToAll')
          return (options: Parameters<EventStore['subscribeToAll']>[0]) =>
            target.subscribeToAll({
              ...options,
              onEvents: async (events, through) => {
                await options.onEvents(events, through);
                offeredThrough = Math.max(offeredThrough, through ?? events.at(-1)?.position ?? 0);
              },
            });
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const head = await stores.events.headPosition();
    const runner = await run(new ProjectionRunner(projection, watched, stores.readStore));
    await waitFor(() => slowStarted === 4 && offeredThrough >= head, 'the slow events holding every slot, and the log read past the window');
    // Events handled in each turn once the slow ones let go: the rest were held back behind them.
    const perTurn: number[] = [];
    let counted = 0;
    const tick = () => {
      perTurn.push(handled - counted);
      counted = handled;
      if (handled < cheap + 8) setImmediate(tick);
    };
    setImmediate(tick);
    gate.open();
    await waitFor(() => handled === cheap + 8, { what: 'every event handled', timeoutMs: 60_000 });
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(500);
    expect(runner.checkpoint).toBe(head);
  });

  it('stops once the handlers under way are done, storing the watermark', async () => {
    stores = sqliteStores();
    const gate = new Gate();
    const reactor = recorder({ hold: (e) => (e.data['key'] === 'last' ? gate.opened : undefined) });
    const runner = new ProjectionRunner(reactor.projection, stores.events, stores.readStore);
    await runner.start();
    await appendInterleaved(stores.events, ['a', 'b'], 5);
    const { position: last } = await stores.events.append('thing-acme:last', [anEvent('Happened', { key: 'last', n: 0 })], 'no_stream');
    await waitFor(() => reactor.handled.length === 10 && reactor.started.length === 11, 'all handled but the last, which runs');
    let stopped = false;
    const stop = runner.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    gate.open();
    await stop;
    expect(await stores.readStore.checkpoint('recorder')).toBe(last);
  });
});
