import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { CountingEventStore } from '../../../../test/support/counting-event-store.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { type RecordedEvent, streamName } from '#warden/kernel';
import type { EventStore } from '../event-store.port.js';
import type { Projection } from './projection.js';
import { ProjectionRunner } from './projection-runner.js';
import { groupStart, loadCheckpoint, SUCCESSIONS } from './succession.js';

/** A reactor that remembers what it handled, in order. */
function successor(handled: number[], succeeds = ['old-strikes', 'old-delivery'], name = 'new-actions'): Projection {
  return {
    name,
    reactor: true,
    collections: [],
    eventTypes: ['Published'],
    succeeds,
    apply: (event: RecordedEvent) => void handled.push(event.data['n'] as number),
  };
}

const published = (n: number) => anEvent('Published', { n });

describe('a reactor that succeeds others (Projection.succeeds)', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  /** Given six published events, and the predecessors' checkpoints at the positions of the `n`th events (0: never ran). */
  async function given(checkpoints: Record<string, number>) {
    stores = sqliteStores();
    const positions: number[] = [];
    for (let n = 1; n <= 6; n++) positions.push((await stores.events.append(streamName('action', `a${n}`), [published(n)], 'no_stream')).position);
    for (const [name, nth] of Object.entries(checkpoints)) {
      if (nth > 0) await stores.readStore.commit([], { projection: name, from: 0, to: positions[nth - 1]! });
    }
    return positions;
  }

  it('starts after the earlier of its predecessors’ checkpoints, and stores it as its own', async () => {
    // Given the old strikes reactor at the 4th event and the old delivery reactor at the 2nd.
    const positions = await given({ 'old-strikes': 4, 'old-delivery': 2 });
    const handled: number[] = [];
    // When the successor starts, with no checkpoint of its own.
    const runner = new ProjectionRunner(successor(handled), stores.events, stores.readStore);
    await runner.start();
    // Then it handles what the delivery reactor had not (3 to 6): the 3rd and 4th again for the
    // strikes reactor's part, which its effects must bear, and nothing before.
    await waitFor(() => handled.length === 4, 'the events after the earlier checkpoint');
    await runner.stop();
    expect(handled).toEqual([3, 4, 5, 6]);
    expect(await stores.readStore.checkpoint('new-actions')).toBe(positions[5]);
  });

  it('goes on from its own checkpoint once it has one, whatever its predecessors’ say', async () => {
    const positions = await given({ 'old-strikes': 1, 'old-delivery': 1, 'new-actions': 5 });
    const handled: number[] = [];
    const runner = new ProjectionRunner(successor(handled), stores.events, stores.readStore);
    await runner.start();
    await waitFor(async () => (await stores.readStore.checkpoint('new-actions')) === positions[5], 'the checkpoint at the head');
    await runner.stop();
    expect(handled).toEqual([6]);
  });

  it('starts from the beginning of the log when a predecessor never ran', async () => {
    await given({ 'old-strikes': 4 });
    const handled: number[] = [];
    const runner = new ProjectionRunner(successor(handled), stores.events, stores.readStore);
    await runner.start();
    await waitFor(() => handled.length === 6, 'every event');
    await runner.stop();
    expect(handled).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('is stored once when two workers take it up at once (compare-and-set from none)', async () => {
    const positions = await given({ 'old-strikes': 3, 'old-delivery': 5 });
    const projection = successor([]);
    const [a, b] = await Promise.all([loadCheckpoint(stores.readStore, projection), loadCheckpoint(stores.readStore, projection)]);
    expect([a, b]).toEqual([positions[2], positions[2]]);
    expect(await stores.readStore.checkpoint('new-actions')).toBe(positions[2]);
  });

  it('takes the checkpoint another worker stored between its read and its write', async () => {
    const positions = await given({ 'old-strikes': 3, 'old-delivery': 5 });
    // Another worker stores its start, and has already moved on, after this one read none.
    const racing = new Proxy(stores.readStore, {
      get(target, property, receiver) {
        if (property === 'commit') {
          return async (...args: Parameters<typeof target.commit>) => {
            await target.commit([], { projection: 'new-actions', from: 0, to: positions[4]! });
            return target.commit(...args);
          };
        }
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    expect(await loadCheckpoint(racing, successor([]))).toBe(positions[4]);
  });

  it('creates its consumer group after the earlier of its predecessors’ groups (a group that does not exist counts as the start)', async () => {
    await given({});
    const groups = new Map([
      ['group:old-strikes', 40],
      ['group:old-delivery', 25],
    ]);
    const withGroups = new Proxy(stores.events, {
      get(target, property, receiver) {
        if (property === 'groupCheckpoint') return async (group: string) => groups.get(group);
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as EventStore;
    const groupOf = (name: string) => `group:${name}`;
    expect(await groupStart(withGroups, stores.readStore, successor([]), groupOf)).toBe(25);
    // Decided once, stored as its own: the predecessors moving on changes nothing.
    groups.set('group:old-delivery', 90).set('group:old-strikes', 90);
    expect(await groupStart(withGroups, stores.readStore, successor([]), groupOf)).toBe(25);
    expect(await stores.readStore.checkpoint('new-actions')).toBe(25);
    groups.delete('group:old-delivery');
    expect(await groupStart(withGroups, stores.readStore, successor([], undefined, 'other-actions'), groupOf)).toBe(0);
    // Its own checkpoint in the read store (a deployment that ran it before the groups) comes first.
    await stores.readStore.commit([], { projection: 'third-actions', from: 0, to: 7 });
    expect(await groupStart(withGroups, stores.readStore, successor([], undefined, 'third-actions'), groupOf)).toBe(7);
  });

  it('decides once: started from the beginning of the log, it never inherits the later checkpoint of a predecessor that still runs', async () => {
    // Given a fresh log: the predecessor (still registered, e.g. the engine's report routing whose
    // routes the successor handles) has no checkpoint yet when the successor is first settled.
    const positions = await given({});
    const projection = successor([], ['still-running']);
    expect(await loadCheckpoint(stores.readStore, projection)).toBe(0);
    // When the predecessor moves on before the successor's first commit, and the successor's
    // checkpoint is loaded again (a restart, a catch-up, another worker taking its lease),
    await stores.readStore.commit([], { projection: 'still-running', from: 0, to: positions[4]! });
    // Then it still starts from the beginning: nothing the predecessor did since is skipped.
    expect(await loadCheckpoint(stores.readStore, projection)).toBe(0);
    const handled: number[] = [];
    const runner = new ProjectionRunner(successor(handled, ['still-running']), stores.events, stores.readStore);
    await runner.start();
    await waitFor(() => handled.length === 6, 'every event');
    await runner.stop();
    expect(handled).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('stores a decided start that a crash left without its checkpoint (MongoDB writes the decision first)', async () => {
    const positions = await given({ 'old-strikes': 3, 'old-delivery': 5 });
    await stores.readStore.commit([{ op: 'put', collection: SUCCESSIONS, id: 'new-actions', doc: { projection: 'new-actions', start: positions[2]! } }]);
    // The predecessors have moved on since; the decision stands.
    await stores.readStore.commit([], { projection: 'old-strikes', from: positions[2]!, to: positions[5]! });
    expect(await loadCheckpoint(stores.readStore, successor([]))).toBe(positions[2]);
    expect(await stores.readStore.checkpoint('new-actions')).toBe(positions[2]);
  });

  it('decides a consumer group’s start once too, at the start of the log as well', async () => {
    await given({});
    const theirs: { checkpoint?: number } = {};
    const withGroups = new Proxy(stores.events, {
      get(target, property, receiver) {
        if (property === 'groupCheckpoint') return async () => theirs.checkpoint;
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as EventStore;
    const projection = successor([], ['still-running']);
    // Settled at start, before the predecessor's group exists; the group is created later (a
    // second worker, a restart before the first acknowledgement), after the predecessor's moved on.
    expect(await groupStart(withGroups, stores.readStore, projection, (name) => `g:${name}`)).toBe(0);
    theirs.checkpoint = 40;
    expect(await groupStart(withGroups, stores.readStore, projection, (name) => `g:${name}`)).toBe(0);
  });

  it('reads the groups’ checkpoints through the stores that decorate the log, and refuses to start from the beginning without them', async () => {
    await given({});
    const inner = {
      subscribeToGroup: () => ({ stop: async () => undefined }),
      groupCheckpoint: async (group: string) => (group === 'g:old-strikes' ? 30 : 12),
    };
    // The personal-data codec and the upcasters are such decorators (libs/storage/src/storage.ts).
    const decorated = new CountingEventStore(inner as unknown as EventStore);
    expect(await groupStart(decorated, stores.readStore, successor([]), (name) => `g:${name}`)).toBe(12);
    const withoutCheckpoints = new CountingEventStore({ subscribeToGroup: inner.subscribeToGroup } as unknown as EventStore);
    await expect(groupStart(withoutCheckpoints, stores.readStore, successor([], undefined, 'other-actions'), (name) => `g:${name}`)).rejects.toThrow(
      /group checkpoints/,
    );
  });
});
