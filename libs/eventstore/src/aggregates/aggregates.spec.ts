import { afterEach, describe, expect, it } from 'vitest';
import { CountingEventStore } from '../../../../test/support/counting-event-store.js';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { type CommandContext, type Decider, type DomainEvent, DomainError, FixedClock, type Json, randomIds } from '#warden/kernel';
import { SqliteSnapshotStore } from '../snapshots/sqlite-snapshot-store.js';
import { Aggregates } from './aggregates.js';

/** A tally: adds once per key, refuses past a limit; its state is bounded (the total, the last key). */
type TallyCommand = { type: 'Add'; key: string; by: number; limit?: number };
type TallyEvent = DomainEvent<'Added', { key: string; by: number }>;
interface TallyState {
  readonly total: number;
  readonly lastKey: string | null;
  readonly folded: number;
}

class OverLimit extends DomainError {
  constructor() {
    super('conflict', [{ title: 'Over the limit' }]);
  }
}

const tally = (snapshotVersion?: number): Decider<TallyCommand, TallyState, TallyEvent> => ({
  eventTypes: { Added: true },
  initialState: { total: 0, lastKey: null, folded: 0 },
  decide(command, state) {
    if (command.key === state.lastKey) return [];
    if (command.limit !== undefined && state.total + command.by > command.limit) throw new OverLimit();
    return [{ type: 'Added', data: { key: command.key, by: command.by } }];
  },
  evolve: (state, event) => ({ total: state.total + event.data.by, lastKey: event.data.key, folded: state.folded + 1 }),
  ...(snapshotVersion === undefined
    ? {}
    : {
        snapshot: { name: 'tally', version: snapshotVersion, encode: (s: TallyState) => ({ ...s }) as Json, decode: (j: Json) => j as unknown as TallyState },
      }),
});

/** Deciders are module constants in the application: the cache knows a state by its decider's evolve. */
const plainTally = tally();
const tallyV1 = tally(1);
const tallyV2 = tally(2);

const context: CommandContext = { orgId: 'acme', correlationId: 'c1', actor: 'test' };
const add = (key: string, by = 1, limit?: number): TallyCommand => ({ type: 'Add', key, by, ...(limit === undefined ? {} : { limit }) });

describe('Aggregates: the one write path', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  const setUp = (options: { snapshotEvery?: number; personal?: boolean; erasures?: () => Promise<number> } = {}) => {
    stores = sqliteStores();
    const events = new CountingEventStore(stores.events);
    const snapshots = new SqliteSnapshotStore(stores.open());
    const make = () =>
      new Aggregates(
        { events, clock: new FixedClock(new Date('2026-11-28T00:00:00Z')), ids: randomIds },
        {
          snapshots,
          snapshotEvery: options.snapshotEvery ?? 100,
          personalEventType: () => options.personal ?? false,
          ...(options.erasures ? { erasures: options.erasures } : {}),
        },
      );
    return { events, snapshots, make };
  };

  /** Appends n Added events straight to the log (another process's history). */
  const fill = async (events: CountingEventStore, stream: string, n: number) => {
    let expected: 'no_stream' | number = 'no_stream';
    for (let i = 0; i < n; i += 1000) {
      const chunk = Array.from({ length: Math.min(1000, n - i) }, (_, j) => anEvent('Added', { key: `f${i + j}`, by: 1 }));
      expected = (await events.append(stream, chunk, expected)).nextRevision;
    }
    events.reset();
  };

  it('lets the event loop go between pages while folding a long stream read whole (no snapshot)', async () => {
    const { events, make } = setUp();
    await fill(events, 'tally-long', 3_500);
    let done = false;
    const reading = make()
      .state('tally-long', plainTally)
      .then((read) => {
        done = true;
        return read;
      });
    // Scheduled once the read began: it runs before the read ends only if the read let the loop go.
    let ranDuringRead = false;
    setImmediate(() => (ranDuringRead = !done));
    const { state, revision } = await reading;
    expect([state.total, state.folded, revision]).toEqual([3_500, 3_500, 3_499]);
    expect(ranDuringRead).toBe(true);
    // In pages of a thousand events: four reads, each event once.
    expect([events.streamReads, events.eventsRead]).toEqual([4, 3_500]);
    // The history (its readers: a reversal of strikes, a small job's move) the same way, every event in order.
    events.reset();
    const history = await make().history('tally-long', plainTally);
    expect([history.events.length, history.events.at(-1)?.data.key, history.state.total, events.streamReads]).toEqual([3_500, 'f3499', 3_500, 4]);
  });

  it('reads only the events after the cached state: a command on a long stream reads what is new', async () => {
    const { events, make } = setUp();
    const aggregates = make();
    await fill(events, 'tally-a', 10_000);
    const first = await aggregates.handle('tally-a', plainTally, add('k1'), context);
    expect(first.state.total).toBe(10_001);
    expect(events.eventsRead).toBe(10_000);
    events.reset();
    const second = await aggregates.handle('tally-a', plainTally, add('k2'), context);
    expect(second.state.total).toBe(10_002);
    expect(events.eventsRead).toBe(0);
  });

  it("catches another process's append by the expected revision and reads forward once", async () => {
    const { events, make } = setUp();
    const here = make();
    const there = make();
    await here.handle('tally-b', plainTally, add('k1'), context);
    await there.handle('tally-b', plainTally, add('k2'), context);
    events.reset();
    const handled = await here.handle('tally-b', plainTally, add('k3'), context);
    expect(handled.state.total).toBe(3);
    // Only k2, the other process's event, is read: no full re-read.
    expect(events.eventsRead).toBe(1);
  });

  it('decides on the cached state without reading the stream: the append checks it', async () => {
    const { events, make } = setUp();
    const aggregates = make();
    await aggregates.handle('tally-o', plainTally, add('k1'), context);
    events.reset();
    const handled = await aggregates.handle('tally-o', plainTally, add('k2'), context);
    expect(handled.state.total).toBe(2);
    expect(events.streamReads).toBe(0);
    expect(events.appends).toBe(1);
  });

  it("decides again on the stream as read when the cached state's decision appends nothing", async () => {
    const { events, make } = setUp();
    const here = make();
    const there = make();
    await here.handle('tally-p', plainTally, add('k1'), context);
    await there.handle('tally-p', plainTally, add('k2'), context);
    events.reset();
    // On the cached state (last key k1) adding k1 again is a no-op; on the stream (last key k2) it is not.
    const handled = await here.handle('tally-p', plainTally, add('k1'), context);
    expect(handled.events).toHaveLength(1);
    expect(handled.state.total).toBe(3);
    expect(events.streamReads).toBe(1);
    expect((await stores.events.readStream('tally-p')).map((e) => e.data['key'])).toEqual(['k1', 'k2', 'k1']);
  });

  it('decides a command on a stream expected to be new without reading it, and again on the stream when it exists', async () => {
    const { events, make } = setUp();
    const aggregates = make();
    const fresh = await aggregates.handle('tally-q', plainTally, add('k1'), context, { newStream: true });
    expect(fresh.revision).toBe(0);
    expect(events.streamReads).toBe(0);
    await fill(events, 'tally-r', 3);
    // Another process's stream of three events: the append on the initial state fails, the stream is read.
    const existing = await make().handle('tally-r', plainTally, add('k1'), context, { newStream: true, retries: 0 });
    expect(existing.state.total).toBe(4);
    expect(existing.revision).toBe(3);
    expect(events.streamReads).toBe(1);
  });

  it("decides a stream's waiting commands together and appends them at once", async () => {
    const { events, make } = setUp();
    const aggregates = make();
    await aggregates.handle('tally-c', plainTally, add('k0'), context);
    events.reset();
    const handled = await Promise.all(Array.from({ length: 50 }, (_, i) => aggregates.handle('tally-c', plainTally, add(`k${i + 1}`), context)));
    // Each answer is the state after its own command, in the order they came, at its own revision.
    expect(handled.map((h) => h.state.total)).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
    expect(handled.map((h) => h.revision)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(events.appends).toBeLessThanOrEqual(2);
    expect((await stores.events.readStream('tally-c')).map((e) => e.data['key'])).toEqual(Array.from({ length: 51 }, (_, i) => `k${i}`));
  });

  it('refuses one command of a group and appends the others', async () => {
    const { make } = setUp();
    const aggregates = make();
    const outcomes = await Promise.allSettled([
      aggregates.handle('tally-d', plainTally, add('k1', 2, 3), context),
      aggregates.handle('tally-d', plainTally, add('k2', 2, 3), context),
      aggregates.handle('tally-d', plainTally, add('k3', 1, 3), context),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(OverLimit);
    expect((await stores.events.readStream('tally-d')).map((e) => e.data['key'])).toEqual(['k1', 'k3']);
  });

  it('snapshots a long stream, so that a process without it cached reads the events after the snapshot only', async () => {
    const { events, snapshots, make } = setUp({ snapshotEvery: 100 });
    await fill(events, 'tally-e', 10_000);
    await make().handle('tally-e', tallyV1, add('k1'), context);
    await waitForSnapshot(snapshots, 'tally-e', 9_999);
    events.reset();
    const fresh = make();
    const handled = await fresh.handle('tally-e', tallyV1, add('k2'), context);
    expect(handled.state.total).toBe(10_002);
    // The snapshot was taken as the first command read the stream: only that command's event follows it.
    expect(events.eventsRead).toBeLessThanOrEqual(1);
    expect(handled.state.folded).toBe(10_002);
  });

  it('ignores a snapshot of another version: a changed evolve folds the stream again', async () => {
    const { events, snapshots, make } = setUp();
    await fill(events, 'tally-f', 500);
    await make().state('tally-f', tallyV1);
    await waitForSnapshot(snapshots, 'tally-f', 499);
    events.reset();
    const { state } = await make().state('tally-f', tallyV2);
    expect(state.total).toBe(500);
    expect(events.eventsRead).toBe(500);
  });

  it('spaces snapshots as the policy says (a state whose snapshot grows with it), and writes none for a state it declines', async () => {
    const { events, snapshots, make } = setUp({ snapshotEvery: 10 });
    // A quarter of the total apart; none past a total of 150.
    const spaced: typeof tallyV1 = { ...tallyV1, snapshot: { ...tallyV1.snapshot!, spacing: (s) => (s.total > 150 ? null : Math.floor(s.total / 4)) } };
    await fill(events, 'tally-s', 100);
    const aggregates = make();
    // Read at revision 99 (a total of 100): written there.
    await aggregates.handle('tally-s', spaced, add('k0'), context);
    await waitForSnapshot(snapshots, 'tally-s', 99);
    // Every 10 events would have written at 109, 119, 129 and 139; a quarter of the total apart, the
    // next is at 132 (33 events on, a total of 133).
    for (let i = 1; i <= 40; i++) await aggregates.handle('tally-s', spaced, add(`k${i}`), context);
    await waitForSnapshot(snapshots, 'tally-s', 132);
    expect((await snapshots.read('tally-s', 'tally'))?.revision).toBe(132);
    // Past a total of 150 the policy declines: none at 176, where the spacing alone would have put the next.
    for (let i = 41; i <= 120; i++) await aggregates.handle('tally-s', spaced, add(`k${i}`), context);
    expect((await snapshots.read('tally-s', 'tally'))?.revision).toBe(132);
    const { state } = await make().state('tally-s', spaced);
    expect(state.total).toBe(221);
  });

  it('writes no snapshot larger than its store takes (KurrentDB: one append), and tries again only at the next spacing', async () => {
    const { events, snapshots } = setUp({ snapshotEvery: 10 });
    const small = Object.assign(Object.create(snapshots) as SqliteSnapshotStore, { maxBytes: 200 });
    const aggregates = new Aggregates(
      { events, clock: new FixedClock(new Date('2026-11-28T00:00:00Z')), ids: randomIds },
      { snapshots: small, snapshotEvery: 10 },
    );
    // A state whose snapshot grows a byte an event: about 150 bytes at a total of 100, past 200 by about 150.
    let encoded = 0;
    const growing: typeof tallyV1 = {
      ...tallyV1,
      snapshot: {
        ...tallyV1.snapshot!,
        encode: (s: TallyState) => {
          encoded += 1;
          return { ...s, pad: 'x'.repeat(s.total) } as Json;
        },
        spacing: (s) => Math.floor(s.total / 4),
      },
    };
    await fill(events, 'tally-big', 100);
    await aggregates.handle('tally-big', growing, add('k0'), context);
    await waitForSnapshot(snapshots, 'tally-big', 99);
    for (let i = 1; i <= 120; i++) await aggregates.handle('tally-big', growing, add(`k${i}`), context);
    // Written at 132 (a total of 133, within 200 bytes); at 166 (167) and after, too large: none.
    await waitForSnapshot(snapshots, 'tally-big', 132);
    expect((await snapshots.read('tally-big', 'tally'))?.revision).toBe(132);
    // Encoded at 99, 132 and 166 (the next spacing, a quarter of the total, is past the end): not at each of the 121 commands.
    expect(encoded).toBe(3);
  });

  it('never snapshots a state folded from events with personal data', async () => {
    const { events, snapshots, make } = setUp({ personal: true });
    await fill(events, 'tally-g', 300);
    const tallyWithoutPolicy = plainTally;
    await make().handle('tally-g', tallyWithoutPolicy, add('k1'), context);
    expect(await snapshots.read('tally-g', 'tally')).toBeUndefined();
  });

  it('reads a state with personal data again once an erasure has come since it was cached, in whichever process', async () => {
    let erasures = 0;
    const { events, make } = setUp({ personal: true, erasures: () => Promise.resolve(erasures) });
    const aggregates = make();
    await fill(events, 'tally-e', 200);
    await aggregates.handle('tally-e', plainTally, add('k1'), context);
    events.reset();
    // Cached: the next command reads nothing, and neither does a query.
    await aggregates.handle('tally-e', plainTally, add('k2'), context);
    expect((await aggregates.state('tally-e', plainTally)).state.total).toBe(202);
    expect(events.eventsRead).toBe(0);
    // Another process forgets a subject's key: this one's cached state may hold what it opened.
    erasures = 1;
    await aggregates.handle('tally-e', plainTally, add('k3'), context);
    expect(events.eventsRead).toBe(202);
    events.reset();
    await aggregates.handle('tally-e', plainTally, add('k4'), context);
    expect(events.eventsRead).toBe(0);
    erasures = 2;
    expect((await aggregates.state('tally-e', plainTally)).state.total).toBe(204);
    expect(events.eventsRead).toBe(204);
  });

  it('makes a command from the state with inputs read elsewhere, again after a concurrent append', async () => {
    const { make } = setUp();
    const here = make();
    const there = make();
    await here.handle('tally-h', plainTally, add('k1'), context);
    const seen: number[] = [];
    const handled = await here.handleAfterReading(
      'tally-h',
      plainTally,
      async (state) => {
        seen.push(state.total);
        // Another process appends while this command reads its inputs (the first time only).
        if (seen.length === 1) await there.handle('tally-h', plainTally, add('k2'), context);
        return add(`after-${state.total}`);
      },
      context,
    );
    expect(seen).toEqual([1, 2]);
    expect(handled.state.total).toBe(3);
    expect((await stores.events.readStream('tally-h')).map((e) => e.data['key'])).toEqual(['k1', 'k2', 'after-2']);
  });

  it('reports a conflict once the retries are spent, appending nothing', async () => {
    const { make } = setUp();
    const here = make();
    const there = make();
    await here.handle('tally-i', plainTally, add('k0'), context);
    let n = 0;
    const attempt = here.handleAfterReading(
      'tally-i',
      plainTally,
      async () => {
        await there.handle('tally-i', plainTally, add(`other-${n++}`), context);
        return add('mine');
      },
      context,
      { retries: 2 },
    );
    await expect(attempt).rejects.toMatchObject({ status: 409 });
    expect((await stores.events.readStream('tally-i')).map((e) => e.data['key'])).not.toContain('mine');
  });

  it("refuses a command made on an earlier revision than the stream's (expectedRevision), appending nothing", async () => {
    const { make } = setUp();
    const here = make();
    await here.handle('tally-k', plainTally, add('k1'), context);
    const { revision } = await here.state('tally-k', plainTally);
    await make().handle('tally-k', plainTally, add('k2'), context);
    await expect(here.handle('tally-k', plainTally, add('planned'), context, { expectedRevision: revision })).rejects.toMatchObject({ status: 409 });
    const now = await here.state('tally-k', plainTally);
    const handled = await here.handle('tally-k', plainTally, add('planned'), context, { expectedRevision: now.revision });
    expect(handled.revision).toBe(now.revision + 1);
    expect((await stores.events.readStream('tally-k')).map((e) => e.data['key'])).toEqual(['k1', 'k2', 'planned']);
  });

  it("appends a command's events a few at a time when asked, each append after the last", async () => {
    const { events, make } = setUp();
    const many: Decider<{ type: 'Many'; n: number }, number, TallyEvent> = {
      eventTypes: { Added: true },
      initialState: 0,
      decide: (c) => Array.from({ length: c.n }, (_, i) => ({ type: 'Added', data: { key: `m${i}`, by: 1 } })),
      evolve: (s, e) => s + e.data.by,
    };
    const handled = await make().handle('tally-j', many, { type: 'Many', n: 25 }, context, { eventsPerAppend: 10 });
    expect(handled.state).toBe(25);
    expect(events.appends).toBe(3);
    expect(await stores.events.readStream('tally-j')).toHaveLength(25);
  });
});

async function waitForSnapshot(snapshots: SqliteSnapshotStore, stream: string, revision: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const stored = await snapshots.read(stream, 'tally');
    if (stored && stored.revision >= revision) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`no snapshot of ${stream} at ${revision}`);
}
