import { afterEach, describe, expect, it } from 'vitest';
import { type EventStore, orderingKey, type Projection, ProjectionRunner, SqliteLeaseStore } from '#warden/eventstore';
import { FixedClock, systemClock } from '#warden/kernel';
import { Metrics } from '#warden/platform';
import { anEvent } from '../../../test/support/events.js';
import { sqliteStores } from '../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../test/support/wait-for.js';
import { BACKGROUND_MAX_WAIT_MS, DelegateGoneError, FOREGROUND_LAG_EVENTS, type ProjectionDelegate, ProjectionHost } from './projection-host.js';
import type { Storage } from './storage.js';

/** Counts `Noted` events per stream into a read model. */
const notes: Projection = {
  name: 'notes',
  collections: ['notes'],
  eventTypes: ['Noted'],
  async apply(event, ctx) {
    const doc = (await ctx.get<{ n: number }>('notes', event.streamName)) ?? { n: 0 };
    ctx.put('notes', event.streamName, { n: doc.n + 1 });
  },
};

describe('ProjectionHost', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  /** A process's projection host over the test's stores (`events`: the log as the host reads it), with `notes` registered. */
  const hostOn = (events: EventStore = stores.events, metrics = new Metrics(), sequentialPositions = true) => {
    const storage = { events, storedEvents: events, readStore: stores.readStore, sequentialPositions } as unknown as Storage;
    const host = new ProjectionHost(storage, metrics, { reactorLease: { ttlMs: 10_000, renewEveryMs: 3_000 } }, systemClock);
    host.register(notes);
    return host;
  };
  /** Appends a `Noted` event to the stream; its log position. */
  const note = async (stream: string) => (await stores.events.append(stream, [anEvent('Noted')], 'any')).position;

  describe('read-model indexes', () => {
    const indexed: Projection = {
      ...notes,
      name: 'indexed-notes',
      indexes: [{ collection: 'notes', fields: ['n'] }],
      retiredIndexes: [{ collection: 'notes', fields: ['n', 'stale'] }],
    };

    it('creates the declared indexes and drops the retired ones, leaving any other', async () => {
      stores = sqliteStores();
      // What an earlier release made, and what another (a newer one) declares.
      await stores.readStore.ensureIndex('notes', ['n', 'stale']);
      await stores.readStore.ensureIndex('notes', ['n', 'newer']);
      const storage = { events: stores.events, storedEvents: stores.events, readStore: stores.readStore, sequentialPositions: true } as unknown as Storage;
      const host = new ProjectionHost(storage, new Metrics(), { reactorLease: { ttlMs: 10_000, renewEveryMs: 3_000 } }, systemClock);
      host.register(indexed);
      await host.ensureIndexes();
      expect(await stores.readStore.dropIndex('notes', ['n', 'stale'])).toBe(false);
      expect(await stores.readStore.dropIndex('notes', ['n'])).toBe(true);
      expect(await stores.readStore.dropIndex('notes', ['n', 'newer'])).toBe(true);
    });
  });

  describe('the read-model thread (a delegate)', () => {
    /** `notes` marked for the read-model thread, and a projection that stays beside the reactors. */
    const ownThreadNotes: Projection = { ...notes, ownThread: true };
    const local: Projection = {
      ...notes,
      name: 'local-notes',
      collections: ['local_notes'],
      async apply(event, ctx) {
        const doc = (await ctx.get<{ n: number }>('local_notes', event.streamName)) ?? { n: 0 };
        ctx.put('local_notes', event.streamName, { n: doc.n + 1 });
      },
    };
    const hostWith = (...projections: Projection[]) => hostOver(stores.events, ...projections);
    const hostOver = (events: EventStore, ...projections: Projection[]) => {
      const storage = { events, storedEvents: events, readStore: stores.readStore, sequentialPositions: true } as unknown as Storage;
      const host = new ProjectionHost(storage, new Metrics(), { reactorLease: { ttlMs: 10_000, renewEveryMs: 3_000 } }, systemClock);
      for (const p of projections) host.register(p);
      return host;
    };
    /**
     * The main thread's host and the thread's, on the same stores, joined as ReadModelThread joins
     * them across the worker boundary (apps/server/src/read-model-delegate.ts): requests by call,
     * progress by listener. `asked` records what was passed on.
     */
    const threaded = () => {
      const main = hostWith(ownThreadNotes, local);
      const thread = hostWith(ownThreadNotes, local);
      const asked: string[] = [];
      const delegate: ProjectionDelegate = {
        catchUp: (name) => (asked.push(`catchUp ${name}`), thread.catchUp(name)),
        catchUpTo: (name, position, waitMs) => (asked.push(`catchUpTo ${name} ${position}`), thread.catchUpTo(name, position, waitMs)),
        stop: () => thread.stopAll(),
      };
      thread.onProgress((name, position) => main.delegatedProgress(name, position));
      return { main, thread, delegate, asked };
    };

    it('names the ownThread read models; startAll leaves the delegated ones out; their catch-ups are passed on and awaited', async () => {
      stores = sqliteStores();
      const { main, delegate, asked } = threaded();
      expect(main.ownThreadProjections()).toEqual(['notes']);
      expect(await main.delegate(['notes'], delegate)).toBe(true);
      await main.startAll();
      try {
        const position = await note('note-a');
        // The local projection runs here; the delegated one only by what was passed on.
        await waitFor(async () => (await stores.readStore.get('local_notes', 'note-a')) !== undefined, 'the local projection');
        expect(await stores.readStore.get('notes', 'note-a')).toBeUndefined();
        const before = main.localProgress('notes');
        await main.catchUp('notes');
        expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 1 });
        expect(main.localProgress('notes')).toBeGreaterThan(before);
        await note('note-a');
        await main.catchUpTo('notes', position + 1, 50);
        expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 2 });
        expect(asked).toEqual(['catchUp notes', `catchUpTo notes ${position + 1}`]);
      } finally {
        await main.stopAll();
      }
    });

    it("reports the thread's committed batches as local progress, so that readers that keep what they read read afresh", async () => {
      stores = sqliteStores();
      const { main, thread, delegate } = threaded();
      await main.delegate(['notes'], delegate);
      await main.startAll();
      await thread.startOnly(['notes']);
      try {
        const before = main.localProgress('notes');
        await note('note-a');
        await waitFor(() => main.localProgress('notes') > before, "the thread's batch reported");
        expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 1 });
      } finally {
        await main.stopAll();
      }
    });

    it('stops the runners already running here before the thread takes over from their stored checkpoint: no event applied twice', async () => {
      stores = sqliteStores();
      const { main, thread, delegate } = threaded();
      await main.startAll();
      try {
        await note('note-a');
        await waitFor(async () => (await stores.readStore.get('notes', 'note-a')) !== undefined, 'applied here');
        expect(main.runsHere('notes')).toBe(true);
        await main.delegate(['notes'], delegate);
        expect(main.runsHere('notes')).toBe(false);
        await thread.startOnly(['notes']);
        expect(thread.runsHere('notes')).toBe(true);
        await note('note-a');
        await note('note-a');
        await waitFor(async () => (await stores.readStore.get<{ n: number }>('notes', 'note-a'))?.n === 3, 'applied by the thread');
        await main.catchUp('notes');
        expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 3 });
      } finally {
        await main.stopAll();
      }
    });

    it('catches up here when the thread has gone, and runs the projections here again once told it ended', async () => {
      stores = sqliteStores();
      const main = hostWith(ownThreadNotes, local);
      const gone: ProjectionDelegate = {
        catchUp: () => Promise.reject(new DelegateGoneError('exited (1)')),
        catchUpTo: () => Promise.reject(new DelegateGoneError('exited (1)')),
        stop: async () => undefined,
      };
      await main.delegate(['notes'], gone);
      await main.startAll();
      try {
        await note('note-a');
        await main.catchUp('notes');
        expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 1 });
        await main.delegateLost('exited (1)');
        await note('note-a');
        await waitFor(async () => (await stores.readStore.get<{ n: number }>('notes', 'note-a'))?.n === 2, 'applied by the runner here, unasked');
      } finally {
        await main.stopAll();
      }
    });

    it('passes on what the thread failed with other than by ending; hands nothing over once stopping', async () => {
      stores = sqliteStores();
      const main = hostWith(ownThreadNotes);
      const failing: ProjectionDelegate = {
        catchUp: () => Promise.reject(new Error('disk full')),
        catchUpTo: () => Promise.reject(new Error('disk full')),
        stop: async () => undefined,
      };
      await main.delegate(['notes'], failing);
      await expect(main.catchUp('notes')).rejects.toThrow('disk full');
      await main.stopAll();
      expect(main.stopping).toBe(true);
      expect(await main.delegate(['notes'], failing)).toBe(false);
      expect(() => main.delegate(['nothing'], failing)).toThrow('No read-model projection nothing');
    });

    /** The log, counting the subscriptions open on it: a runner started twice leaves one open after its stop. */
    const countingSubscriptions = () => {
      const open = { n: 0 };
      const events = new Proxy(stores.events, {
        get(target, property, receiver) {
          if (property === 'subscribeToAll')
            return (...args: Parameters<typeof target.subscribeToAll>) => {
              const subscription = target.subscribeToAll(...args);
              open.n++;
              let stopped = false;
              return {
                stop: async () => {
                  if (!stopped) open.n--;
                  stopped = true;
                  await subscription.stop();
                },
              };
            };
          const value = Reflect.get(target, property, receiver) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      return { events, open };
    };

    it('a thread that ends while the host starts or hands over: its projections start here once, after; nothing left open after the stop', async () => {
      stores = sqliteStores();
      const { events, open } = countingSubscriptions();
      // The delegated projection after one that starts first: a start under way when the thread fails has yet to reach it.
      const main = hostOver(events, local, ownThreadNotes);
      const gone: ProjectionDelegate = {
        catchUp: () => Promise.reject(new DelegateGoneError('failed')),
        catchUpTo: () => Promise.reject(new DelegateGoneError('failed')),
        stop: async () => undefined,
      };
      const handedOver = main.delegate(['notes'], gone);
      // The thread fails while the host starts: the take-back waits for the start.
      const starting = main.startAll();
      const lost = main.delegateLost('could not start');
      await Promise.all([handedOver, starting, lost]);
      expect(main.runsHere('notes')).toBe(true);
      expect(open.n).toBe(2);
      // And while a second hand-over waits for the runner's batch.
      const again = main.delegate(['notes'], gone);
      const lostAgain = main.delegateLost('exited (1)');
      await Promise.all([again, lostAgain]);
      expect(main.runsHere('notes')).toBe(true);
      expect(open.n).toBe(2);
      await note('note-a');
      await waitFor(async () => (await stores.readStore.get<{ n: number }>('notes', 'note-a'))?.n === 1, 'applied here');
      await main.stopAll();
      expect(open.n).toBe(0);
    });

    it('starts nothing once stopping: a start that reaches the thread after its stop (a shutdown during the hand-over)', async () => {
      stores = sqliteStores();
      const { events, open } = countingSubscriptions();
      const thread = hostOver(events, ownThreadNotes);
      await thread.stopAll();
      await thread.startOnly(['notes']);
      expect(thread.runsHere('notes')).toBe(false);
      const main = hostOver(events, ownThreadNotes, local);
      await main.stopAll();
      await main.startAll();
      expect(open.n).toBe(0);
    });
  });

  it('changes its local progress with every catch-up it finishes, also when another runner had committed the batch first', async () => {
    stores = sqliteStores();
    const host = hostOn();
    const progress: number[] = [host.localProgress('notes')];
    const step = () => progress.push(host.localProgress('notes'));

    await host.catchUp('notes');
    step();
    await note('note-a');
    await host.catchUp('notes');
    step();
    expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 1 });

    // Another process's runner (a worker) projects the next event first: this catch-up's commit conflicts.
    await note('note-a');
    await new ProjectionRunner(notes, stores.events, stores.readStore).catchUp();
    await host.catchUp('notes');
    step();
    expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 2 });
    expect(new Set(progress).size).toBe(progress.length);
  });

  it('brings a projection up to a position by waiting for its own subscription where it runs, by a catch-up elsewhere', async () => {
    stores = sqliteStores();
    let logReads = 0;
    // Catch-ups read the log with readAll; a running subscription never does.
    const events = new Proxy(stores.events, {
      get(target, property, receiver) {
        if (property === 'readAll') return (...args: Parameters<typeof target.readAll>) => (logReads++, target.readAll(...args));
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

    // An api process: the projection does not run here, so it is caught up.
    const api = hostOn(events);
    const first = await note('note-a');
    await api.catchUpTo('notes', first);
    expect(logReads).toBeGreaterThan(0);
    expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 1 });
    // An event without a known position (-1, or 0) is never taken as reached: caught up.
    await note('note-b');
    const reads = logReads;
    await api.catchUpTo('notes', -1);
    expect(logReads).toBeGreaterThan(reads);
    expect(await stores.readStore.get('notes', 'note-b')).toEqual({ n: 1 });

    // A worker: its subscription gets there, and nothing reads the log beside it.
    const worker = hostOn(events);
    await worker.startAll();
    try {
      const readsBefore = logReads;
      const second = await note('note-a');
      // A generous wait: on a loaded machine the subscription may take a while, and a fall-back would read the log.
      await worker.catchUpTo('notes', second, 60_000);
      expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 2 });
      expect(logReads).toBe(readsBefore);
    } finally {
      await worker.stopAll();
    }
  });

  describe('a background projection (the audit trail)', () => {
    /**
     * A burst already in the log (more events than the lag that holds the trail back), and a host
     * with a foreground projection held in its first batch until `open()` (unless `slow: false`)
     * and a background one recording what it applied.
     */
    const burstHost = async (options: { slow?: boolean; sequentialPositions?: boolean } = {}) => {
      stores = sqliteStores();
      const head = (
        await stores.events.append(
          'burst',
          Array.from({ length: FOREGROUND_LAG_EVENTS + 100 }, () => anEvent('Noted')),
          'any',
        )
      ).position;
      const metrics = new Metrics();
      const host = hostOn(stores.events, metrics, options.sequentialPositions ?? true);
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      if (options.slow !== false) host.register({ name: 'slow', collections: ['slow'], eventTypes: ['Noted'], apply: () => gate });
      const trailed: number[] = [];
      host.register({ name: 'trail', collections: ['trail'], eventTypes: ['Noted'], background: true, apply: (event) => void trailed.push(event.position) });
      const waits = async () => (await metrics.backgroundWaits.get()).values.find((v) => v.labels.projection === 'trail')?.value ?? 0;
      return { host, head, trailed, open, waits };
    };

    it('waits while another projection of the process is far behind the log, and catches up once it is not', async () => {
      const { host, head, trailed, open, waits } = await burstHost();
      await host.startAll();
      try {
        await waitFor(async () => (await waits()) > 0, 'the trail holding its batch back');
        expect(trailed).toEqual([]);
        open();
        await waitFor(() => trailed.at(-1) === head, 'the trail caught up');
        expect(trailed).toHaveLength(head);
      } finally {
        open();
        await host.stopAll();
      }
    });

    it('holds nothing back while every other projection keeps up with the log', async () => {
      const { host, head, trailed, waits } = await burstHost({ slow: false });
      // notes, the other projection, is already at the log's head when the trail starts.
      await host.catchUp('notes');
      await host.startAll();
      try {
        await waitFor(() => trailed.at(-1) === head, 'the trail caught up');
        expect(await waits()).toBe(0);
      } finally {
        await host.stopAll();
      }
    });

    it('never waits on a log whose positions are not event counts (KurrentDB commit positions)', async () => {
      const { host, head, trailed, open, waits } = await burstHost({ sequentialPositions: false });
      await host.startAll();
      try {
        await waitFor(() => trailed.at(-1) === head, 'the trail caught up while the other is stuck');
        expect(await waits()).toBe(0);
      } finally {
        open();
        await host.stopAll();
      }
    });

    it(`goes on after ${BACKGROUND_MAX_WAIT_MS} ms even when the other stays behind; a catch-up brings it up to the log meanwhile`, async () => {
      const { host, head, trailed, open, waits } = await burstHost();
      await host.startAll();
      try {
        await waitFor(async () => (await waits()) > 0, 'the trail holding its batch back');
        // The slow projection never moves: the trail still applies its batch after the longest wait.
        await waitFor(() => trailed.length > 0, 'the trail applying a batch all the same');
        await host.catchUp('trail');
        expect(await stores.readStore.checkpoint('trail')).toBe(head);
      } finally {
        open();
        await host.stopAll();
      }
    });
  });

  describe('a reactor under its lease', () => {
    const LEASE = 'reactor:noticer';
    /**
     * A host whose reactor records the positions it handles, with leases and the keeper on a clock
     * the test moves: moving it past the lease's time is what a blocked event loop does to them.
     */
    const leasedHost = () => {
      stores = sqliteStores();
      const clock = new FixedClock(new Date('2026-01-01T00:00:00Z'));
      const leases = new SqliteLeaseStore(stores.open(), { clock, holderIsGone: () => false });
      const storage = {
        events: stores.events,
        storedEvents: stores.events,
        readStore: stores.readStore,
        sequentialPositions: true,
        leases,
      } as unknown as Storage;
      const host = new ProjectionHost(storage, new Metrics(), { reactorLease: { ttlMs: 300, renewEveryMs: 100 } }, clock);
      const handled: number[] = [];
      const runs = { activated: 0, deactivated: 0 };
      host.register({
        name: 'noticer',
        reactor: true,
        collections: [],
        eventTypes: ['Noted'],
        keyOf: (event) => orderingKey(event, event.streamName),
        apply: (event) => void handled.push(event.position),
        activate: () => void runs.activated++,
        deactivate: () => void runs.deactivated++,
      });
      return { host, clock, leases, handled, runs };
    };

    it('takes its lease back after it expired during a blocked loop, and resumes from its checkpoint', async () => {
      const { host, clock, leases, handled, runs } = leasedHost();
      await host.startAll();
      try {
        const first = await note('note-a');
        await waitFor(() => handled.includes(first), 'the first event handled');
        // The freeze: the lease's time ran out; an event arrived meanwhile.
        clock.advance(60_000);
        const during = await note('note-b');
        await waitFor(() => runs.deactivated === 1, 'the reactor stopped');
        await waitFor(() => runs.activated === 2, 'the lease taken back');
        const after = await note('note-a');
        await waitFor(() => handled.includes(after), 'an event after the take-back handled');
        expect(handled).toEqual([first, during, after]);
        expect((await leases.inspect(LEASE))!.expiresAt).toBeGreaterThan(clock.now().getTime());
        expect(await stores.readStore.checkpoint('noticer')).toBeGreaterThanOrEqual(during);
      } finally {
        await host.stopAll();
      }
    });

    it('stands by while another process holds the lease it lost, and takes it back when that one lets go', async () => {
      const { host, clock, leases, handled, runs } = leasedHost();
      await host.startAll();
      try {
        const first = await note('note-a');
        await waitFor(() => handled.includes(first), 'the first event handled');
        // The lease expired under a blocked loop and another worker took it at once.
        clock.advance(60_000);
        expect(await leases.acquire(LEASE, 'other-worker', 60_000)).toBe(true);
        await waitFor(() => runs.deactivated === 1, 'the reactor stopped');
        const meanwhile = await note('note-b');
        // The other worker has the event to handle, not this one, which stands by.
        expect(await leases.inspect(LEASE)).toMatchObject({ holder: 'other-worker' });
        expect(runs).toEqual({ activated: 1, deactivated: 1 });
        // The other worker ends: this one takes over from the stored checkpoint.
        await leases.release(LEASE, 'other-worker');
        await waitFor(() => handled.includes(meanwhile), 'the event handled after the take-back');
        expect(runs).toEqual({ activated: 2, deactivated: 1 });
        expect(handled).toEqual([first, meanwhile]);
      } finally {
        await host.stopAll();
      }
    });
  });

  describe('a catch-up to a position (catchUpTo)', () => {
    it('brings a projection that is not following the log through the position, not to the head of a log that keeps growing', async () => {
      stores = sqliteStores();
      const positions: number[] = [];
      for (let batch = 0; batch < 3; batch++) {
        const { position } = await stores.events.append(
          `notes-${batch}`,
          Array.from({ length: 500 }, () => anEvent('Noted')),
          'no_stream',
        );
        positions.push(position);
      }
      const host = hostOn();
      // Given 1,500 events and `notes` not started here (another role's, or stopped); when a
      // reader needs the read model as of the 400th event.
      await host.catchUpTo('notes', positions[0]! - 100);
      // Then one read of the log's next 500 events brought it there, and it stopped.
      expect(await stores.readStore.get('notes', 'notes-0')).toEqual({ n: 500 });
      expect(await stores.readStore.get('notes', 'notes-1')).toBeUndefined();
      expect(await stores.readStore.checkpoint('notes')).toBe(positions[0]);
      // An event without a known position: up to the head.
      await host.catchUpTo('notes', 0);
      expect(await stores.readStore.get('notes', 'notes-2')).toEqual({ n: 500 });
    });
  });

  describe('a reactor that took over from others (Projection.succeeds)', () => {
    it('starts after the earlier predecessor’s checkpoint even when a predecessor, still registered, is started first and runs ahead', async () => {
      stores = sqliteStores();
      // Given the old strikes reactor at the 4th of six events and the delivery reactor at the 2nd.
      const positions: number[] = [];
      for (let n = 1; n <= 6; n++) positions.push(await note(`s-${n}`));
      await stores.readStore.commit([], { projection: 'old-strikes', from: 0, to: positions[3]! });
      await stores.readStore.commit([], { projection: 'delivery', from: 0, to: positions[1]! });
      const host = hostOn();
      // The delivery reactor now passes over what it used to handle: left alone, it reaches the head at once.
      host.register({ name: 'delivery', reactor: true, collections: [], eventTypes: ['Other'], apply: () => undefined });
      const handled: number[] = [];
      host.register({
        name: 'actions',
        reactor: true,
        collections: [],
        eventTypes: ['Noted'],
        succeeds: ['old-strikes', 'delivery'],
        apply: (event) => void handled.push(event.position),
        // Started only once the delivery reactor has reached the head: the worst order.
        activate: async () => {
          await waitFor(async () => (await stores.readStore.checkpoint('delivery')) === positions[5], 'the delivery reactor at the head');
        },
      });
      // When the host starts them, the predecessor registered (and started) first.
      await host.startAll();
      try {
        await waitFor(async () => (await stores.readStore.checkpoint('actions')) === positions[5], 'the successor at the head');
        // Then the successor handled everything after the delivery reactor's old checkpoint.
        expect(handled).toEqual(positions.slice(2));
      } finally {
        await host.stopAll();
      }
    });
  });
});
