import { afterEach, describe, expect, it } from 'vitest';
import { type Projection, ProjectionRunner } from '#warden/eventstore';
import { randomIds, systemClock } from '#warden/kernel';
import { Metrics } from '#warden/platform';
import { sqliteStores } from '../../../test/support/sqlite-stores.js';
import { ProjectionHost } from './projection-host.js';
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

  it('changes its local progress with every catch-up it finishes, also when another runner had committed the batch first', async () => {
    stores = sqliteStores();
    const storage = { events: stores.events, storedEvents: stores.events, readStore: stores.readStore } as unknown as Storage;
    const host = new ProjectionHost(storage, new Metrics(), { reactorLease: { ttlMs: 10_000, renewEveryMs: 3_000 } }, systemClock);
    host.register(notes);
    const note = (stream: string) =>
      stores.events.append(stream, [{ id: randomIds.uuid(), type: 'Noted', data: {}, metadata: { orgId: 'acme', occurredAt: new Date().toISOString() } as never }], 'any');
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
});
