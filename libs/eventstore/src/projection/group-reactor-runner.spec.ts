import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import type { RecordedEvent } from '#warden/kernel';
import { type EventStore, EventsFailedError, type GroupSubscribeOptions } from '../event-store.port.js';
import { GroupReactorRunner } from './group-reactor-runner.js';
import { orderingKey, type Projection } from './projection.js';

function recorded(position: number, key: string): RecordedEvent {
  return {
    id: `e${position}`,
    type: 'Happened',
    data: { key },
    streamName: `thing-${key}`,
    revision: 0,
    position,
    metadata: { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'test', occurredAt: new Date(0).toISOString(), schemaVersion: 1 },
  };
}

/** KurrentDB's consumer group as a member sees it: the test hands over the batches, overlapping as the adapter does. */
function fakeGroup() {
  let subscribed: GroupSubscribeOptions | undefined;
  const events = {
    subscribeToGroup(options: GroupSubscribeOptions) {
      subscribed = options;
      return { stop: async () => undefined };
    },
  } as unknown as EventStore & Required<Pick<EventStore, 'subscribeToGroup'>>;
  return { events, deliver: (batch: RecordedEvent[]) => subscribed!.onEvents(batch) };
}

/** A keyed reactor (key `data.key`) whose `apply` the test writes: a slow or failing command. */
function keyedReactor(apply: (event: RecordedEvent) => Promise<void>): Projection {
  return { name: 'grouped', reactor: true, collections: [], eventTypes: ['Happened'], keyOf: (e) => orderingKey(e, String(e.data['key'])), apply };
}

/** A promise the test resolves: a handler held until then. */
function gate(): { readonly held: Promise<void>; readonly release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { held, release };
}

/** What a delivered batch came to: acknowledged, or the error its failing events went back with. */
const outcomeOf = (batch: Promise<void>): Promise<unknown> =>
  batch.then(
    () => 'acknowledged',
    (error: unknown) => error,
  );

describe('GroupReactorRunner, keyed reactor', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  /** The reactor's runner started on a fake consumer group. */
  const started = async (reactor: Projection) => {
    const group = fakeGroup();
    const runner = new GroupReactorRunner(reactor, group.events, stores.readStore);
    await runner.start();
    return { group, runner };
  };

  it("keeps a key's order across overlapping batches while other keys go on; a batch settles once all its events ran", async () => {
    stores = sqliteStores();
    const handled: number[] = [];
    const { held, release } = gate();
    const reactor = keyedReactor(async (event) => {
      if (event.position === 1) await held;
      if (event.position === 5) throw new Error('command failed');
      handled.push(event.position);
    });
    const { group, runner } = await started(reactor);
    let firstSettled = false;
    // Delivered out of log order, as a group may: the runner orders each batch by position.
    const first = group.deliver([recorded(2, 'b'), recorded(1, 'a')]).then(() => (firstSettled = true));
    // Key d's second event comes after its failing one: both go back, in their order.
    const second = group.deliver([recorded(3, 'a'), recorded(4, 'c'), recorded(5, 'd'), recorded(6, 'd')]);
    const secondOutcome = outcomeOf(second);
    await waitFor(() => handled.includes(2) && handled.includes(4), "the other keys' events handled");
    expect(handled).not.toContain(3);
    expect(firstSettled).toBe(false);
    release();
    await first;
    // Once the rest of the batch ran, the failing key's events go back for a retry, and only they.
    const outcome = await secondOutcome;
    expect(outcome).toBeInstanceOf(EventsFailedError);
    expect([...(outcome as EventsFailedError).eventIds].sort()).toEqual(['e5', 'e6']);
    expect(((outcome as EventsFailedError).cause as Error).message).toBe('command failed');
    // Key d's second event never ran: it waits for the retry behind its failed one.
    expect(handled).toEqual([2, 4, 1, 3]);
    await runner.stop();
  });

  it("runs none of a key's later events, from a batch that overlaps, before its failed event is retried: they go back with it", async () => {
    stores = sqliteStores();
    const handled: number[] = [];
    const { held, release } = gate();
    let failures = 0;
    const reactor = keyedReactor(async (event) => {
      if (event.position === 1) {
        await held;
        if (failures++ === 0) throw new Error('command failed');
      }
      handled.push(event.position);
    });
    const { group, runner } = await started(reactor);
    // Key a's first event runs (and will fail) while the next batch brings its second, and key b's.
    const first = outcomeOf(group.deliver([recorded(1, 'a')]));
    const second = outcomeOf(group.deliver([recorded(2, 'a'), recorded(3, 'b')]));
    await waitFor(() => handled.includes(3), "key b's event handled");
    release();
    const [firstOutcome, secondOutcome] = await Promise.all([first, second]);
    expect(firstOutcome).toBeInstanceOf(EventsFailedError);
    // Key a's second event is not handled before its first: it goes back too, and b's is acknowledged.
    expect(handled).toEqual([3]);
    expect(secondOutcome).toBeInstanceOf(EventsFailedError);
    expect([...(secondOutcome as EventsFailedError).eventIds]).toEqual(['e2']);
    // The group hands them back, in order: both run now.
    await group.deliver([recorded(1, 'a'), recorded(2, 'a')]);
    expect(handled).toEqual([3, 1, 2]);
    await runner.stop();
  });

  it("runs none of a key's later events that come after its event failed while its batch still waits on another key: they go back with it", async () => {
    stores = sqliteStores();
    const handled: number[] = [];
    const { held, release } = gate();
    let failures = 0;
    const reactor = keyedReactor(async (event) => {
      if (event.position === 1 && failures++ === 0) throw new Error('command failed');
      if (event.position === 2) await held;
      handled.push(event.position);
    });
    const { group, runner } = await started(reactor);
    // Key a's event fails at once; its batch waits for key b's.
    let firstSettled = false;
    const first = outcomeOf(group.deliver([recorded(1, 'a'), recorded(2, 'b')])).then((o) => ((firstSettled = true), o));
    await waitFor(() => failures === 1, "key a's event failed");
    // The next batch brings key a's second event (and c's) before the failed one went back.
    const second = outcomeOf(group.deliver([recorded(3, 'a'), recorded(4, 'c')]));
    await waitFor(() => handled.includes(4), "key c's event handled");
    expect(firstSettled).toBe(false);
    release();
    const [firstOutcome, secondOutcome] = await Promise.all([first, second]);
    expect([...(firstOutcome as EventsFailedError).eventIds]).toEqual(['e1']);
    // Key a's second event is not handled before its first is retried: it goes back too.
    expect(handled).toEqual([4, 2]);
    expect(secondOutcome).toBeInstanceOf(EventsFailedError);
    expect([...(secondOutcome as EventsFailedError).eventIds]).toEqual(['e3']);
    // Handed back in order, both run; the key is not blocked.
    await group.deliver([recorded(1, 'a'), recorded(3, 'a')]);
    expect(handled).toEqual([4, 2, 1, 3]);
    await runner.stop();
  });

  it('subscribes nothing when stopped while its start was still reading where to begin (a SIGTERM during start-up)', async () => {
    stores = sqliteStores();
    let subscriptions = 0;
    const events = {
      subscribeToGroup() {
        subscriptions++;
        return { stop: async () => undefined };
      },
    } as unknown as EventStore & Required<Pick<EventStore, 'subscribeToGroup'>>;
    // The read store's checkpoint read held until released, as a slow store would.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inner = stores.readStore;
    const slowStore = new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop !== 'checkpoint') return Reflect.get(target, prop, receiver) as unknown;
        return async (name: string) => {
          await gate;
          return target.checkpoint(name);
        };
      },
    });
    const reactor: Projection = { name: 'late', reactor: true, collections: [], eventTypes: ['Happened'], apply: () => undefined };
    const runner = new GroupReactorRunner(reactor, events, slowStore);
    const starting = runner.start();
    await runner.stop();
    release();
    await starting;
    expect(subscriptions).toBe(0);
    // Started again, it subscribes once.
    await runner.start();
    expect(subscriptions).toBe(1);
    await runner.stop();
  });
});
