import {
  type AllStreamResolvedEvent,
  AppendRecordSizeExceededError,
  ANY,
  type AppendStreamState,
  BACKWARDS,
  FORWARDS,
  END,
  eventTypeFilter,
  type Filter,
  jsonEvent,
  KurrentDBClient,
  MaxAppendSizeExceededError,
  NO_STREAM,
  PersistentSubscriptionDoesNotExistError,
  PersistentSubscriptionExistsError,
  persistentSubscriptionToAllSettingsFromDefaults,
  type PersistentSubscriptionToAllResolvedEvent,
  PINNED,
  type Position,
  type ReadPosition,
  RETRY,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import { type EventMetadata, type JsonObject, type NewEvent, partTooLarge, type RecordedEvent } from '#warden/kernel';
import {
  type AppendResult,
  type EventStore,
  EventStoreUnavailableError,
  type ExpectedRevision,
  type GroupSubscribeOptions,
  type ReadAllOptions,
  type ReadStreamOptions,
  type SubscribeOptions,
  type Subscription,
  WrongExpectedRevisionError,
} from '../event-store.port.js';
import { isSnapshotStream, KurrentDbSnapshotStore, SNAPSHOT_EVENT_TYPE } from '../snapshots/kurrentdb-snapshot-store.js';

const BATCH = 500;
/**
 * Events a persistent subscription member holds unacknowledged (its share in flight): the server
 * sends no more until some are acknowledged, which bounds the member's overlapping batches.
 */
const GROUP_BUFFER = 200;
/** Filtered catch-up subscriptions report how far the server searched every this many search windows. */
const CHECKPOINT_INTERVAL = 4;

/**
 * KurrentDB (formerly EventStoreDB) as the event log. Our positions are the server's commit
 * positions; system events (`$`-types, `$`-streams) are never handed to the application.
 *
 * Note on this client (1.3.x): reads go through its native bridge, appends and subscriptions
 * through gRPC.
 */
export class KurrentDbEventStore implements EventStore {
  private readonly subscriptions = new Set<Subscription>();

  constructor(private readonly client: KurrentDBClient) {}

  /** Aggregate snapshots beside the log, on the same connection; none larger than the server's MaxAppendSize (`maxAppendBytes`). */
  snapshots(maxAppendBytes?: number): KurrentDbSnapshotStore {
    return new KurrentDbSnapshotStore(this.client, maxAppendBytes);
  }

  async append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('Nothing to append');
    let result;
    try {
      result = await this.client.appendToStream(
        streamName,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data, metadata: { ...e.metadata } })),
        { streamState: toStreamState(expected) },
      );
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = typeof error.actualState === 'bigint' ? Number(error.actualState) : 'no_stream';
        throw new WrongExpectedRevisionError(streamName, expected, actual);
      }
      // The server's own limits (MaxAppendSize for an append, MaxAppendEventSize for one event):
      // what the request would record is too large for this log, a 413 naming the limit rather
      // than a 500 (docs/operations.md, "KurrentDB's append limits").
      if (error instanceof MaxAppendSizeExceededError) throw tooLargeForTheLog(`the server's MaxAppendSize of ${error.maxAppendSize} bytes`);
      if (error instanceof AppendRecordSizeExceededError) throw tooLargeForTheLog(`the server's MaxAppendEventSize of ${error.maxSize} bytes`);
      throw error;
    }
    // Only with `throwOnAppendFailure=false` in the connection string; the client then reports
    // no reliable current revision, so read it.
    if (!result.success) {
      const last = await this.lastEventOf(streamName);
      throw new WrongExpectedRevisionError(streamName, expected, last ? last.revision : 'no_stream');
    }
    // An idempotent replay may come back without a position.
    const position = result.position ? Number(result.position.commit) : ((await this.lastEventOf(streamName))?.position ?? 0);
    return { nextRevision: Number(result.nextExpectedRevision), position };
  }

  async readStream(streamName: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      const read = options.backwards
        ? ({ direction: BACKWARDS, fromRevision: options.fromRevision === undefined ? END : BigInt(options.fromRevision) } as const)
        : ({ direction: FORWARDS, fromRevision: BigInt(options.fromRevision ?? 0) } as const);
      for await (const resolved of this.client.readStream(streamName, { ...read, maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER })) {
        const e = toRecorded(resolved);
        if (e) out.push(e);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  /** The newest event read backwards (the client reads no stream's revision alone); not made a RecordedEvent. */
  async lastRevision(streamName: string): Promise<number | undefined> {
    try {
      for await (const resolved of this.client.readStream(streamName, { fromRevision: END, direction: BACKWARDS, maxCount: 1 })) {
        if (resolved.event) return Number(resolved.event.revision);
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return undefined;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const out: RecordedEvent[] = [];
    let cursor = options.after ?? 0;
    // Pages until `limit` events are found or the log ends: reading from a position may return the
    // event at that position again, and events dropped here must not shorten the result (a short
    // or empty batch means "end of log" to callers).
    for (;;) {
      const want = Math.min(limit - out.length + 1, Number.MAX_SAFE_INTEGER);
      const from = cursor;
      let received = 0;
      for await (const resolved of this.client.readAll({
        fromPosition: cursor > 0 ? atPosition(cursor) : START,
        maxCount: want,
        filter: serverFilter(options.eventTypes),
      })) {
        received++;
        const e = toRecorded(resolved);
        if (!e || e.position <= cursor) continue;
        cursor = e.position;
        if (!isSystem(e) && out.length < limit) out.push(e);
      }
      if (received < want || out.length >= limit || cursor === from) return out;
    }
  }

  async headPosition(): Promise<number> {
    // Filtered, so that the head is comparable with the checkpoints of our projections (lag).
    for await (const resolved of this.client.readAll({
      fromPosition: END,
      direction: BACKWARDS,
      maxCount: 1,
      filter: applicationEvents(),
    })) {
      return commitPosition(resolved) ?? 0;
    }
    return 0;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const after = options.after ?? 0;
    // With a type filter the server skips the other events; its checkpoints say how far it
    // searched, so the subscriber's checkpoint moves over long runs of events it never sees.
    let searchedTo: { position: number; marker: number } | undefined;
    const searched = (position: Position) => {
      searchedTo = { position: Math.max(Number(position.commit), searchedTo?.position ?? 0), marker: taken + stream.readableLength };
      signal();
    };
    const filter = serverFilter(options.eventTypes, searched);
    const stream = this.client.subscribeToAll({
      fromPosition: after > 0 ? atPosition(after) : START,
      filter,
    });
    let stopped = false;
    let failure: unknown;
    const { signal, wait } = wakeUp();
    const fail = (error: unknown) => {
      failure ??= error;
      signal();
    };

    // Caught-up is signalled when the server's marker passes through the stream, possibly while
    // events before it still sit in the buffer: report it only once those have been handled.
    let taken = 0;
    let handled = 0;
    let caughtUpAt: number | undefined;
    let caughtUpReported = false;
    const maybeCaughtUp = () => {
      if (caughtUpReported || caughtUpAt === undefined || handled < caughtUpAt || stopped) return;
      caughtUpReported = true;
      try {
        options.onCaughtUp?.();
      } catch (error) {
        fail(error);
      }
    };

    stream
      .on('readable', signal)
      .on('end', signal)
      .on('close', signal)
      // Also keeps an error emitted after stop() from becoming an uncaught exception.
      .on('error', fail)
      .on('caughtUp', (info) => {
        caughtUpAt ??= taken + stream.readableLength;
        // Caught up at a position: everything up to it was delivered or filtered out.
        if (options.eventTypes && info?.position) searched(info.position);
        maybeCaughtUp();
      });

    let released: Promise<void> | undefined;
    const release = () =>
      (released ??= (async () => {
        // unsubscribe() cancels the gRPC call, which does not end the stream on our side.
        await stream.unsubscribe().catch(() => undefined);
        stream.destroy();
      })());

    const loop = (async () => {
      let position = after;
      while (!stopped) {
        if (failure !== undefined) throw failure;
        const batch: RecordedEvent[] = [];
        let item: AllStreamResolvedEvent | null;
        while (batch.length < BATCH && (item = stream.read() as AllStreamResolvedEvent | null) !== null) {
          taken++;
          const e = toRecorded(item);
          if (!e || e.position <= position) continue;
          position = e.position;
          if (!isSystem(e)) batch.push(e);
        }
        // Events the server searched past up to a checkpoint that was read before this batch ended.
        const through = searchedTo && searchedTo.marker <= taken && searchedTo.position > position ? searchedTo.position : undefined;
        if (through !== undefined) position = through;
        if (batch.length > 0 || through !== undefined) {
          if (stopped) return;
          await options.onEvents(batch, through);
        }
        handled = taken;
        maybeCaughtUp();
        if (batch.length === 0 && !stopped && failure === undefined) {
          if (stream.readableEnded || stream.destroyed) throw new Error('KurrentDB subscription ended');
          await wait();
        }
      }
    })()
      .catch((error: unknown) => {
        if (!stopped) options.onError?.(error);
      })
      .finally(release);

    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        signal();
        this.subscriptions.delete(subscription);
        await release();
        await loop;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * A persistent subscription to `$all` (competing consumers): the group is created on first use
   * with a server-side filter on the event types; the server keeps its checkpoint, spreads the
   * events over the connected members and redelivers what is not acknowledged in time or is
   * handed back (after `maxRetryCount` retries an event is parked for an operator to replay).
   *
   * Batches overlap: the next is handed over while earlier ones are still being handled (at most
   * GROUP_BUFFER events are unacknowledged), each acknowledged when its own handling settles, so
   * one slow batch does not hold up the member's later events (GroupReactorRunner keeps order
   * within a key itself). Stopping waits for every batch under way.
   */
  subscribeToGroup(options: GroupSubscribeOptions): Subscription {
    let stopped = false;
    let failure: unknown;
    const { signal, wait } = wakeUp();
    let stream: ReturnType<KurrentDBClient['subscribeToPersistentSubscriptionToAll']> | undefined;
    const pending = new Set<Promise<void>>();
    const loop = (async () => {
      await this.ensureGroup(options);
      if (stopped) return;
      const sub = this.client.subscribeToPersistentSubscriptionToAll(options.group, { bufferSize: GROUP_BUFFER });
      stream = sub;
      sub
        .on('readable', signal)
        .on('end', signal)
        .on('close', signal)
        .on('error', (error) => {
          failure ??= error;
          signal();
        });
      while (!stopped) {
        if (failure !== undefined) throw failure;
        const taken: PersistentSubscriptionToAllResolvedEvent[] = [];
        let item: PersistentSubscriptionToAllResolvedEvent | null;
        while (taken.length < BATCH && (item = sub.read() as PersistentSubscriptionToAllResolvedEvent | null) !== null) taken.push(item);
        if (taken.length === 0) {
          if (sub.readableEnded || sub.destroyed) throw new Error('KurrentDB persistent subscription ended');
          await wait();
          continue;
        }
        const batch = taken.map((t) => toRecorded(t)).filter((e): e is RecordedEvent => e !== undefined && !isSystem(e));
        const handled = (async () => {
          try {
            if (batch.length > 0) await options.onEvents(batch);
            await sub.ack(...taken);
          } catch (error) {
            if (stopped) return;
            options.onRetry?.(error);
            await sub.nack(RETRY, reasonOf(error).slice(0, 200), ...taken);
          }
        })().catch((error: unknown) => {
          // The acknowledgement could not be sent: the subscription is broken; the loop reports it.
          failure ??= error;
          signal();
        });
        pending.add(handled);
        void handled.finally(() => pending.delete(handled));
      }
    })()
      .catch((error: unknown) => {
        if (!stopped) options.onError?.(error);
      })
      .finally(async () => {
        await Promise.all(pending);
        await stream?.unsubscribe().catch(() => undefined);
        stream?.destroy();
      });
    const subscription: Subscription = {
      // The batches in progress are handled and acknowledged first (the loop then ends and its
      // `finally` unsubscribes): unsubscribing under them would lose the acks and have the server
      // hand the batches out again.
      stop: async () => {
        stopped = true;
        signal();
        this.subscriptions.delete(subscription);
        await loop;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * The group's last checkpointed position, as the server reports it in the group's statistics
   * (`lastCheckpointedEventPosition`); 0 for a group that has checkpointed nothing yet.
   */
  async groupCheckpoint(group: string): Promise<number | undefined> {
    try {
      const info = await this.client.getPersistentSubscriptionToAllInfo(group);
      const position = info.stats.lastCheckpointedEventPosition;
      return position === undefined ? 0 : Number(position.commit);
    } catch (error) {
      if (error instanceof PersistentSubscriptionDoesNotExistError) return undefined;
      throw error;
    }
  }

  private async ensureGroup(options: GroupSubscribeOptions): Promise<void> {
    const after = options.startAfter ?? 0;
    try {
      await this.client.createPersistentSubscriptionToAll(
        options.group,
        // Pinned: the server hands one stream's events to one member (best effort), so the order a
        // member keeps within a key holds across the group for keys within a stream. A group
        // created before keeps its strategy (KurrentDB's update command changes it).
        persistentSubscriptionToAllSettingsFromDefaults({ startFrom: after > 0 ? atPosition(after) : START, consumerStrategyName: PINNED }),
        { filter: eventTypeFilter({ regex: typesRegex(options.eventTypes) }) },
      );
    } catch (error) {
      // Another worker created it first, or an earlier run did: the server keeps its checkpoint.
      if (!(error instanceof PersistentSubscriptionExistsError)) throw error;
    }
  }

  async ping(): Promise<void> {
    for await (const _ of this.client.readAll({ maxCount: 1 })) void _;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }

  private async lastEventOf(streamName: string): Promise<RecordedEvent | undefined> {
    try {
      const last = this.client.readStream(streamName, { fromRevision: END, direction: BACKWARDS, maxCount: 1 });
      for await (const resolved of last) {
        return toRecorded(resolved);
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return undefined;
  }
}

/**
 * Creates the client and proves the server answers within `timeoutMs`; start-up fails with
 * EventStoreUnavailableError otherwise. Accepts the schemes of the client's connection string:
 * `kurrentdb://` (also `kurrent://`, `kdb://` and the deprecated `esdb://`; `+discover` for a cluster).
 */
export async function connectKurrentDb(url: string, options: { timeoutMs?: number } = {}): Promise<KurrentDbEventStore> {
  const timeoutMs = options.timeoutMs ?? 8000;
  const where = `KurrentDB at ${withoutCredentials(url)}`;
  let client: KurrentDBClient;
  try {
    client = KurrentDBClient.connectionString(url);
  } catch (error) {
    throw new EventStoreUnavailableError(`${where} cannot be used: ${reasonOf(error)}`, { cause: error });
  }
  const store = new KurrentDbEventStore(client);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    // The client connects lazily and, for reads, has no deadline of its own.
    await Promise.race([store.ping(), timeout]);
    return store;
  } catch (error) {
    await client.dispose().catch(() => undefined);
    throw new EventStoreUnavailableError(`${where} is unreachable: ${reasonOf(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

function toStreamState(expected: ExpectedRevision): AppendStreamState {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  return BigInt(expected);
}

/** Every event but the system's and the snapshots (which live beside the log, not in the application's view of it). */
function applicationEvents(): Filter {
  return eventTypeFilter({ regex: `^(?!\\$|${SNAPSHOT_EVENT_TYPE}$)` });
}

/** Only the given types (and never system events), or every non-system event. */
function serverFilter(eventTypes: readonly string[] | undefined, checkpointReached?: (position: Position) => void): Filter {
  // Snapshots are not events of the application: every type but theirs and the system's.
  if (!eventTypes) return applicationEvents();
  return eventTypeFilter({
    regex: typesRegex(eventTypes),
    ...(checkpointReached ? { checkpointInterval: CHECKPOINT_INTERVAL, checkpointReached: (_: unknown, p: Position) => checkpointReached(p) } : {}),
  });
}

/** An anchored alternation of the exact type names; an empty list matches nothing. */
function typesRegex(eventTypes: readonly string[]): string {
  if (eventTypes.length === 0) return '^$a';
  return `^(?:${eventTypes.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`;
}

function atPosition(position: number): ReadPosition {
  return { commit: BigInt(position), prepare: BigInt(position) };
}

/** What the client's stream and $all reads have in common. */
interface ClientResolvedEvent {
  readonly event?: {
    readonly id: string;
    readonly type: string;
    readonly streamId: string;
    readonly revision: bigint;
    readonly data: unknown;
    readonly metadata: unknown;
    readonly position?: { readonly commit: bigint };
  };
  readonly commitPosition?: bigint;
}

function commitPosition(resolved: ClientResolvedEvent): number | undefined {
  const commit = resolved.event?.position?.commit ?? resolved.commitPosition;
  return commit === undefined ? undefined : Number(commit);
}

function toRecorded(resolved: ClientResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event) return undefined;
  const position = commitPosition(resolved);
  return {
    id: event.id,
    type: event.type,
    streamName: event.streamId,
    revision: Number(event.revision),
    // Servers before 22.6 send no position on stream reads.
    position: position ?? -1,
    data: asJson<JsonObject>(event.data),
    metadata: asJson<EventMetadata>(event.metadata),
  };
}

/** The client parses JSON events; an event written elsewhere as bytes is parsed here. */
function asJson<T>(value: unknown): T {
  if (value instanceof Uint8Array) {
    return (value.length > 0 ? JSON.parse(Buffer.from(value).toString('utf8')) : {}) as T;
  }
  return (value ?? {}) as T;
}

function isSystem(e: RecordedEvent): boolean {
  return e.type.startsWith('$') || e.streamName.startsWith('$') || isSnapshotStream(e.streamName);
}

function withoutCredentials(url: string): string {
  return url.replace(/\/\/[^@/?#]*@/, '//');
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // The client's errors often carry only their class name as message; their `type` says more.
  const type = (error as { type?: unknown }).type;
  const message = error.message.trim();
  if ((message === '' || message === error.constructor.name) && typeof type === 'string') return type;
  return message || error.constructor.name;
}

/** The subscription loops' sleep: `wait()` resolves at the next `signal()` (data, end, error or stop). */
function wakeUp(): { signal: () => void; wait: () => Promise<void> } {
  let wake: (() => void) | undefined;
  return {
    signal: () => {
      const w = wake;
      wake = undefined;
      w?.();
    },
    wait: () => new Promise<void>((resolve) => (wake = resolve)),
  };
}

/** An append the server refused for its size: nothing was appended (an append is all or nothing). */
const tooLargeForTheLog = (limit: string) =>
  partTooLarge({ title: 'Too large for the event log', detail: `What this request records, sealed, is more than ${limit}; send less, or raise the limit` });
