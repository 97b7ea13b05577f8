import { afterEach, describe, expect, it } from 'vitest';
import type { Projection } from '#warden/eventstore';
import { systemClock } from '#warden/kernel';
import { createRootLogger, Metrics } from '#warden/platform';
import { ProjectionHost, type Storage } from '#warden/storage';
import { anEvent } from '../../../test/support/events.js';
import { sqliteStores } from '../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../test/support/wait-for.js';
import { ReadModelThread } from './read-model-delegate.js';

// The main thread's side of the read-model thread across a real worker boundary: the worker is a
// stand-in speaking the thread's protocol (test/fixtures/read-model-thread/), the host a real one
// over the embedded stores. The thread itself runs in the server's e2e tests
// (test/e2e/read-model-thread.e2e.spec.ts).

const fixture = (name: string) => new URL(`../../../test/fixtures/read-model-thread/${name}.mjs`, import.meta.url);

/** Counts `Noted` events per stream, on the read-model thread where there is one. */
const notes: Projection = {
  name: 'notes',
  collections: ['notes'],
  eventTypes: ['Noted'],
  ownThread: true,
  async apply(event, ctx) {
    const doc = (await ctx.get<{ n: number }>('notes', event.streamName)) ?? { n: 0 };
    ctx.put('notes', event.streamName, { n: doc.n + 1 });
  },
};

describe('ReadModelThread (the main thread side)', () => {
  let stores: ReturnType<typeof sqliteStores>;
  let host: ProjectionHost | undefined;
  afterEach(async () => {
    await host?.stopAll();
    await stores?.close();
    host = undefined;
  });

  const hostWithNotes = (metrics = new Metrics()) => {
    const storage = { events: stores.events, storedEvents: stores.events, readStore: stores.readStore, sequentialPositions: true } as unknown as Storage;
    host = new ProjectionHost(storage, metrics, { reactorLease: { ttlMs: 10_000, renewEveryMs: 3_000 } }, systemClock);
    host.register(notes);
    return host;
  };
  const logger = createRootLogger('silent');
  const note = () => stores.events.append('note-a', [anEvent('Noted')], 'any');

  it('passes catch-ups to the thread and awaits its answer; takes its reported positions; stops it by message', async () => {
    stores = sqliteStores();
    const metrics = new Metrics();
    const host = hostWithNotes(metrics);
    const thread = await ReadModelThread.start(host, logger, { entry: fixture('answers'), metrics });
    expect(thread).toBeDefined();
    await host.startAll();
    await waitFor(() => host.localProgress('notes') > 0, "the thread's first positions");
    await note();
    // Answered by the stand-in, which projects nothing: the catch-up was not run here.
    await host.catchUp('notes');
    expect(await stores.readStore.get('notes', 'note-a')).toBeUndefined();
    expect(host.runsHere('notes')).toBe(false);
    // The thread's figures in the process's metrics: its heap, and its held batches (reported as
    // running totals 2, then 3: counted once each).
    await waitFor(async () => (await metrics.backgroundWaits.get()).values.find((v) => v.labels['projection'] === 'notes')?.value === 3, 'the held batches');
    const heap = (await metrics.registry.getSingleMetric('warden_read_model_thread_heap_used_bytes')!.get()).values[0]?.value ?? 0;
    expect(heap).toBeGreaterThan(100_000);
    await host.stopAll();
    await thread!.exited;
  });

  it('catches up on the main thread when the thread gives no answer in time, and leaves the projection with the thread', async () => {
    stores = sqliteStores();
    const host = hostWithNotes();
    const thread = await ReadModelThread.start(host, logger, { entry: fixture('silent'), catchUpTimeoutMs: 200 });
    await host.startAll();
    await note();
    // The stand-in never answers: after the timeout the catch-up runs here, from the stored checkpoint.
    await host.catchUp('notes');
    expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 1 });
    expect(host.runsHere('notes')).toBe(false);
    await host.stopAll();
    await thread!.exited;
  });

  it("reports the running thread's heap, and 0 once it has ended, through one set of gauges per process", async () => {
    stores = sqliteStores();
    const metrics = new Metrics();
    const heapUsed = async () => (await metrics.registry.getSingleMetric('warden_read_model_thread_heap_used_bytes')!.get()).values[0]?.value;
    const first = await ReadModelThread.start(hostWithNotes(metrics), logger, { entry: fixture('exits'), metrics });
    await first!.exited;
    expect(await heapUsed()).toBe(0);
    await host!.stopAll();
    // A second thread in the same process (its host restarted): the gauges are there once, and follow it.
    const second = await ReadModelThread.start(hostWithNotes(metrics), logger, { entry: fixture('answers'), metrics });
    await host!.startAll();
    await waitFor(async () => ((await heapUsed()) ?? 0) > 100_000, "the second thread's heap");
    await host!.stopAll();
    await second!.exited;
  });

  /** A host whose thread (the stand-in `name`) has ended, once it has. */
  const hostAfterTheThreadEnded = async (name: string) => {
    stores = sqliteStores();
    const host = hostWithNotes();
    const thread = await ReadModelThread.start(host, logger, { entry: fixture(name) });
    await host.startAll();
    await thread!.exited;
    return host;
  };

  it('terminates a thread that failed to start, and the host runs its projections itself', async () => {
    // The stand-in reports the failure and stays alive: only a terminate ends it.
    const host = await hostAfterTheThreadEnded('fails');
    await note();
    await waitFor(async () => (await stores.readStore.get<{ n: number }>('notes', 'note-a'))?.n === 1, 'projected here, unasked');
    expect(host.runsHere('notes')).toBe(true);
  });

  it('takes the projections back when the thread ends on its own; catch-ups then run here', async () => {
    const host = await hostAfterTheThreadEnded('exits');
    await waitFor(() => host.runsHere('notes'), 'the runner started here');
    await note();
    await host.catchUp('notes');
    expect(await stores.readStore.get('notes', 'note-a')).toEqual({ n: 1 });
  });
});
