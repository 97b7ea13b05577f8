import { PassThrough } from 'node:stream';
import { type KurrentDBClient, UnknownError } from '@kurrent/kurrentdb-client';
import { describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../../../test/support/wait-for.js';
import { deterministicId, randomIds } from '#warden/kernel';
import { EventStoreUnavailableError, EventsFailedError } from '../event-store.port.js';
import { connectKurrentDb, KurrentDbEventStore, retryPause } from './kurrentdb-event-store.js';

describe('connectKurrentDb', () => {
  // Port 1 on loopback: nothing listens, so the connection is refused. The bound on how long
  // that takes is the test's timeout, not an assertion on elapsed time.
  it('fails start-up with EventStoreUnavailableError naming the host', async () => {
    const error = await connectKurrentDb('kurrentdb://127.0.0.1:1?tls=false').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EventStoreUnavailableError);
    expect((error as Error).message).toContain('127.0.0.1:1');
    expect((error as Error).message).toMatch(/^KurrentDB at .* is unreachable: .+/);
  }, 15_000);

  it('keeps credentials out of the message', async () => {
    const error = await connectKurrentDb('kurrentdb://admin:s3cret@127.0.0.1:1?tls=false').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreUnavailableError);
    expect((error as Error).message).not.toContain('s3cret');
    expect((error as Error).message).toContain('127.0.0.1:1');
  }, 15_000);

  it('refuses an option the client does not know by its key, before the client could print the string with its credentials', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const error = await connectKurrentDb('kurrentdb://admin:s3cret@127.0.0.1:1?tls=false&conectTimeout=5000').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EventStoreUnavailableError);
      expect((error as Error).message).toMatch(
        /^KurrentDB at kurrentdb:\/\/127\.0\.0\.1:1\?… cannot be used: unknown connection option "conectTimeout" \(known: /,
      );
      expect((error as Error).message).not.toContain('s3cret');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('keeps a password holding /, ? or # out of every message (the client takes any character but @ in one)', async () => {
    for (const password of ['se/cr3t', 'se?cr3t', 'se#cr3t']) {
      const error = await connectKurrentDb(`kurrentdb://admin:${password}@127.0.0.1:1?tls=false&bogus=1`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EventStoreUnavailableError);
      expect((error as Error).message, password).toContain('unknown connection option "bogus"');
      expect((error as Error).message, password).not.toContain('cr3t');
      expect((error as Error).message, password).not.toContain('admin');
    }
  });

  it("keeps the string out of the client's parse error (it quotes where it stopped, here the password)", async () => {
    const error = await connectKurrentDb('kurrentdb://admin:s3cret@127.0.0.1:port?tls=false').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreUnavailableError);
    expect((error as Error).message).toMatch(/cannot be used: the connection string does not parse at character \d+: expected/);
    expect((error as Error).message).not.toContain('s3cret');
    expect((error as Error).message).not.toContain('tls=false');
  });

  it('gives up after timeoutMs when the server does not answer, saying so', async () => {
    const error = await connectKurrentDb('kurrentdb://127.0.0.1:1?tls=false', { timeoutMs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreUnavailableError);
    expect((error as Error).message).toContain('no answer within 1 ms');
  });
});

/**
 * The client's subscription streams as the adapter reads them. No KurrentDB server runs here (the
 * contract suite covers a real one when WARDEN_EVENTSTORE_URL is set), so these stand in for the
 * client at its narrowest seam: the object-mode streams it returns and the calls the adapter makes.
 */
function fakeClient() {
  const resolved = (position: number, type: string) => ({
    event: {
      id: `e${position}`,
      type,
      streamId: 'thing-1',
      revision: 0n,
      data: {},
      metadata: {},
      position: { commit: BigInt(position), prepare: BigInt(position) },
    },
  });
  const calls = { acked: [] as string[], nacked: [] as string[], created: [] as Array<Record<string, unknown>>, appended: [] as string[], reads: 0 };
  /** One stream's events as the server holds them (revision = index). */
  const held: Array<{ id: string; type: string }> = [];
  let all: (PassThrough & { unsubscribe?: () => Promise<void> }) | undefined;
  let group: PassThrough | undefined;
  let filter: { checkpointReached?: (subscription: unknown, position: { commit: bigint; prepare: bigint }) => void } | undefined;
  const ids = (events: Array<{ event: { id: string } }>) => events.map((e) => e.event.id);
  const client = {
    subscribeToAll(options: { filter: typeof filter }) {
      filter = options.filter;
      all = Object.assign(new PassThrough({ objectMode: true }), { unsubscribe: async () => undefined });
      return all;
    },
    async createPersistentSubscriptionToAll(_group: string, settings: Record<string, unknown>) {
      calls.created.push(settings);
    },
    subscribeToPersistentSubscriptionToAll() {
      group = Object.assign(new PassThrough({ objectMode: true }), {
        unsubscribe: async () => undefined,
        ack: async (...events: Array<{ event: { id: string } }>) => void calls.acked.push(...ids(events)),
        nack: async (_action: unknown, _reason: string, ...events: Array<{ event: { id: string } }>) => void calls.nacked.push(...ids(events)),
      });
      return group;
    },
    getPersistentSubscriptionToAllInfo: async (): Promise<unknown> => undefined,
    async appendToStream(_stream: string, events: Array<{ id: string; type: string }>) {
      for (const e of events) {
        calls.appended.push(e.id);
        held.push(e);
      }
      return { success: true, nextExpectedRevision: BigInt(held.length - 1), position: { commit: BigInt(held.length * 100), prepare: 0n } };
    },
    async *readStream(streamId: string, options: { maxCount: number }) {
      calls.reads++;
      const newestFirst = held.map((e, revision) => ({ ...e, revision })).reverse();
      for (const e of newestFirst.slice(0, options.maxCount)) {
        yield {
          event: {
            id: e.id,
            type: e.type,
            streamId,
            revision: BigInt(e.revision),
            data: {},
            metadata: {},
            position: { commit: BigInt((e.revision + 1) * 100), prepare: 0n },
          },
        };
      }
    },
    dispose: async () => undefined,
  };
  return {
    store: new KurrentDbEventStore(client as unknown as KurrentDBClient),
    client,
    calls,
    resolved,
    toAll: (position: number, type: string) => all!.write(resolved(position, type)),
    toGroup: (...positions: number[]) => {
      for (const p of positions) group!.write(resolved(p, 'Happened'));
    },
    checkpoint: (position: number) => filter!.checkpointReached!(all, { commit: BigInt(position), prepare: BigInt(position) }),
    groupOpen: () => group !== undefined,
  };
}

describe('KurrentDbEventStore.subscribeToAll (a filtered subscription)', () => {
  it('delivers an event that arrived while a checkpoint alone was being handed over', async () => {
    const fake = fakeClient();
    const seen: number[] = [];
    let arrivedMeanwhile = false;
    const subscription = fake.store.subscribeToAll({
      eventTypes: ['Wanted'],
      onEvents: async (events, through) => {
        seen.push(...events.map((e) => e.position));
        if (events.length === 0 && through !== undefined && !arrivedMeanwhile) {
          arrivedMeanwhile = true;
          fake.toAll(300, 'Wanted');
          // Busy past the stream's 'readable' for it (a read model's commit, say).
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
    });
    fake.toAll(100, 'Wanted');
    await waitFor(() => seen.includes(100), 'the first event');
    fake.checkpoint(200);
    await waitFor(() => arrivedMeanwhile, 'the checkpoint handed over');
    // Nothing else arrives: before, event 300 sat in the buffer until the next event or checkpoint.
    await waitFor(() => seen.includes(300), 'the event that arrived during the checkpoint');
    await subscription.stop();
  });
});

describe('KurrentDbEventStore.subscribeToGroup (a consumer group member)', () => {
  it('creates the group with room for an outage: a long message timeout and many retries before parking', async () => {
    const fake = fakeClient();
    const subscription = fake.store.subscribeToGroup({ group: 'g', eventTypes: ['Happened'], onEvents: async () => undefined });
    await waitFor(() => fake.groupOpen(), 'the member subscribed');
    expect(fake.calls.created[0]).toMatchObject({ messageTimeout: 120_000, maxRetryCount: 100 });
    await subscription.stop();
  });

  it('hands back only the events a batch names as failed, after a pause, and acknowledges the rest', async () => {
    const fake = fakeClient();
    const retried: unknown[] = [];
    const subscription = fake.store.subscribeToGroup({
      group: 'g',
      eventTypes: ['Happened'],
      onEvents: async (events) => {
        if (events.some((e) => e.id === 'e2')) throw new EventsFailedError(new Set(['e2']), new Error('read store down'));
      },
      onRetry: (error) => retried.push(error),
    });
    await waitFor(() => fake.groupOpen(), 'the member subscribed');
    fake.toGroup(1, 2, 3);
    await waitFor(() => fake.calls.nacked.length > 0, 'the failed event handed back');
    expect(fake.calls.nacked).toEqual(['e2']);
    expect(fake.calls.acked.sort()).toEqual(['e1', 'e3']);
    expect(retried).toHaveLength(1);
    await subscription.stop();
  });

  it('does not hand a failed batch back when stopped during the pause (the server redelivers it to whoever is left)', async () => {
    const fake = fakeClient();
    let failures = 0;
    const subscription = fake.store.subscribeToGroup({
      group: 'g',
      eventTypes: ['Happened'],
      onEvents: async () => {
        throw new Error('read store down');
      },
      onRetry: () => failures++,
    });
    await waitFor(() => fake.groupOpen(), 'the member subscribed');
    fake.toGroup(1);
    await waitFor(() => failures === 1, 'the batch failed');
    await subscription.stop();
    expect(fake.calls.nacked).toEqual([]);
    expect(fake.calls.acked).toEqual([]);
  });

  it('pauses longer the more batches fail in a row, up to ten seconds', () => {
    expect([1, 2, 3, 6, 7, 100].map(retryPause)).toEqual([250, 500, 1000, 8000, 10_000, 10_000]);
  });

  it("reads a group that has checkpointed nothing yet as starting where it was created, not at the log's start", async () => {
    const fake = fakeClient();
    fake.client.getPersistentSubscriptionToAllInfo = async () => ({ stats: {}, settings: { startFrom: { commit: 4200n, prepare: 4200n } } });
    expect(await fake.store.groupCheckpoint('g')).toBe(4200);
    fake.client.getPersistentSubscriptionToAllInfo = async () => ({ stats: {}, settings: { startFrom: 'start' } });
    expect(await fake.store.groupCheckpoint('g')).toBe(0);
    fake.client.getPersistentSubscriptionToAllInfo = async () => ({
      stats: { lastCheckpointedEventPosition: { commit: 9000n, prepare: 9000n } },
      settings: { startFrom: { commit: 4200n, prepare: 4200n } },
    });
    expect(await fake.store.groupCheckpoint('g')).toBe(9000);
  });
});

describe('KurrentDbEventStore.append with any and derived ids (an item submission redelivered)', () => {
  const event = (id: string) => ({ id, type: 'ItemSubmitted', data: {}, metadata: {} as never });

  it("finds a repeat in the stream itself, not only in the server's cache of recent ids", async () => {
    const fake = fakeClient();
    const derived = deterministicId('item-submission', 'topic:acme:m-1', 'item-acme-post-1', '0');
    const first = await fake.store.append('item-acme-post-1', [event(derived)], 'any');
    await fake.store.append('item-acme-post-1', [event(randomIds.uuid())], 'any');
    // The server restarted meanwhile, say: only the stream knows the first append.
    const again = await fake.store.append('item-acme-post-1', [event(derived)], 'any');
    expect(again).toEqual(first);
    expect(fake.calls.appended).toHaveLength(2);
  });

  it('reads nothing before an append of random ids (every ordinary append)', async () => {
    const fake = fakeClient();
    await fake.store.append('item-acme-post-2', [event(randomIds.uuid())], 'any');
    expect(fake.calls.reads).toBe(0);
  });
});

describe("KurrentDbEventStore.append over the server's limits", () => {
  it('answers an event over MaxAppendEventSize as too large (413), as the batch append reports it', async () => {
    const fake = fakeClient();
    // What the client's batch append makes of the server's MaximumAppendEventSizeExceeded status
    // (unpackError.js: a status it has no branch for).
    fake.client.appendToStream = async () => {
      throw new UnknownError(undefined, 'Could not recognize MaximumAppendEventSizeExceeded');
    };
    const error = await fake.store.append('s-1', [{ id: randomIds.uuid(), type: 'X', data: {}, metadata: {} as never }], 'any').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 413 });
  });
});
