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
  UnknownError,
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
  EventsFailedError,
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
 * How long a group member may hold an event before the server hands it out again (the client's
 * default is 30 s): a member holds up to GROUP_BUFFER, and a reactor without a key handles its
 * batches one after another, so a slow stretch (a customer's classifier answering in seconds)
 * would otherwise time events out and count retries against them while they wait their turn.
 */
const GROUP_MESSAGE_TIMEOUT_MS = 120_000;
/**
 * Retries before the server parks an event for an operator (the client's default is 10): with the
 * pauses between retries (retryPause, up to RETRY_PAUSE_MAX_MS), about a quarter of an hour of an
 * outage before anything is parked.
 */
const GROUP_MAX_RETRIES = 100;
const RETRY_PAUSE_MS = 250;
const RETRY_PAUSE_MAX_MS = 10_000;
/** How far back an append with 'any' and derived ids looks for an earlier append of the same events (replayOf). */
const IDEMPOTENCY_SCAN = 1000;

/** The pause before a failed batch is handed back: doubling from RETRY_PAUSE_MS with each batch failed in a row, at most RETRY_PAUSE_MAX_MS. */
export const retryPause = (failedInARow: number) => Math.min(RETRY_PAUSE_MAX_MS, RETRY_PAUSE_MS * 2 ** Math.min(16, Math.max(0, failedInARow - 1)));

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
    if (expected === 'any' && events.every((e) => isDerivedId(e.id))) {
      const replay = await this.replayOf(streamName, events);
      if (replay) return replay;
    }
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
      // The batch append this client uses reports an event over MaxAppendEventSize as a status it
      // does not recognize (1.3.x: an UnknownError "Could not recognize <the server's message>").
      if (error instanceof UnknownError && /MaximumAppendEventSize|MaxAppendEventSize/i.test(error.message)) {
        throw tooLargeForTheLog(`the server's MaxAppendEventSize`);
      }
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
    /** Batches failed one after the other (the pause before handing one back grows with it). */
    let failedInARow = 0;
    const pause = stoppableSleep();
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
            failedInARow = 0;
            await sub.ack(...taken);
          } catch (error) {
            if (stopped) return;
            options.onRetry?.(error);
            const failed = error instanceof EventsFailedError ? error.eventIds : undefined;
            const isBack = (t: PersistentSubscriptionToAllResolvedEvent) => failed === undefined || (t.event !== undefined && failed.has(t.event.id));
            const back = taken.filter(isBack);
            if (back.length < taken.length) await sub.ack(...taken.filter((t) => !isBack(t)));
            // The server redelivers a retried event at once and parks it after maxRetryCount
            // retries: without a pause, a second's outage of what the handler needs (the read
            // store, the log) would use up every retry of the events in flight and park them.
            await pause.sleep(retryPause(++failedInARow));
            // Stopped meanwhile: left unacknowledged, the server hands them out again.
            if (stopped) return;
            await sub.nack(RETRY, reasonOf(error).slice(0, 200), ...back);
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
        pause.wake();
        this.subscriptions.delete(subscription);
        await loop;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * The group's last checkpointed position, as the server reports it in the group's statistics
   * (`lastCheckpointedEventPosition`). A group that has checkpointed nothing yet (the server
   * writes its first checkpoint only after checkPointLowerBound events) is where it was created to
   * start: ensureGroup creates a group at the position its reactor had handled, so nothing before
   * it is to be handled again (0 for a group started at the beginning).
   */
  async groupCheckpoint(group: string): Promise<number | undefined> {
    try {
      const info = await this.client.getPersistentSubscriptionToAllInfo(group);
      const position = info.stats.lastCheckpointedEventPosition;
      if (position !== undefined) return Number(position.commit);
      const start = info.settings.startFrom;
      return typeof start === 'object' ? Number(start.commit) : 0;
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
        // created before keeps its settings (KurrentDB's update command changes them:
        // docs/operations.md, "Consumer groups").
        persistentSubscriptionToAllSettingsFromDefaults({
          startFrom: after > 0 ? atPosition(after) : START,
          consumerStrategyName: PINNED,
          messageTimeout: GROUP_MESSAGE_TIMEOUT_MS,
          maxRetryCount: GROUP_MAX_RETRIES,
        }),
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

  /**
   * Events with derived ids appended with 'any' (an item submission redelivered by the inbound
   * topic, say) that the stream already holds: the earlier append's result. The server finds a
   * repeat of an append with an exact or no-stream expectation in its index, but one with 'any'
   * only in a bounded cache of recent event ids, emptied by a restart; this looks in the stream's
   * newest IDEMPOTENCY_SCAN events (one read) instead.
   */
  private async replayOf(streamName: string, events: readonly NewEvent[]): Promise<AppendResult | undefined> {
    const wanted = new Set(events.map((e) => e.id));
    const found = new Map<string, RecordedEvent>();
    for (const e of await this.readStream(streamName, { backwards: true, maxCount: IDEMPOTENCY_SCAN })) {
      if (wanted.has(e.id)) found.set(e.id, e);
    }
    if (found.size === 0) return undefined;
    const last = found.get(events[events.length - 1]!.id);
    if (found.size < wanted.size || !last) throw new Error(`Event id already used in stream ${streamName} by another append`);
    return { nextRevision: last.revision, position: last.position };
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
  const where = `KurrentDB at ${withoutSecrets(url)}`;
  // The client warns of an option it does not know on the console, the whole string with it
  // (credentials included), and goes on without it: refused here first, by its key alone.
  const unknown = unknownConnectionOption(url);
  if (unknown !== undefined) {
    throw new EventStoreUnavailableError(`${where} cannot be used: unknown connection option "${unknown}" (known: ${CONNECTION_OPTIONS.join(', ')})`);
  }
  let client: KurrentDBClient;
  try {
    client = KurrentDBClient.connectionString(url);
  } catch (error) {
    // The client's parse error quotes the string where it stopped, which may be the password.
    throw new EventStoreUnavailableError(`${where} cannot be used: ${parseProblemOf(error)}`, { cause: error });
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

/** An id made by kernel's deterministicId (a UUID of version 8), not a random one (version 7). */
const isDerivedId = (id: string) => id.length === 36 && id[14] === '8';

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

/** The connection string as it may be shown: without user info, and its query marked, not shown. */
function withoutSecrets(url: string): string {
  const bare = withoutUserInfo(url);
  const query = bare.indexOf('?');
  return query === -1 ? bare : `${bare.slice(0, query)}?…`;
}

/**
 * The string without what precedes the first `@` after the scheme: the client takes a password
 * of any characters but `@` (`/`, `?` and `#` too, as base64 secrets hold), so the user info
 * ends there and nowhere sooner. A string without user info but with an `@` in its query loses
 * its host as well: shown too little, never too much.
 */
function withoutUserInfo(url: string): string {
  const scheme = url.indexOf('://');
  const at = url.indexOf('@', scheme + 3);
  return scheme === -1 || at === -1 ? url : `${url.slice(0, scheme + 3)}${url.slice(at + 1)}`;
}

/** The options of the client's connection string (its parseConnectionString, @kurrent/kurrentdb-client 1.3). */
const CONNECTION_OPTIONS = [
  'connectionName',
  'defaultDeadline',
  'discoveryInterval',
  'dnsDiscover',
  'gossipTimeout',
  'keepAliveInterval',
  'keepAliveTimeout',
  'maxDiscoverAttempts',
  'nodePreference',
  'throwOnAppendFailure',
  'tls',
  'tlsCAFile',
  'tlsVerifyCert',
  'userCertFile',
  'userKeyFile',
] as const;

/** The client matches keys without case, `-` or `_`. */
const flatKey = (key: string) => key.trim().toLowerCase().replace(/[_-]/g, '');
const KNOWN_OPTIONS = new Set(CONNECTION_OPTIONS.map(flatKey));

/** The first option key of the string's query that the client does not know, if any. */
function unknownConnectionOption(url: string): string | undefined {
  const bare = withoutUserInfo(url);
  const query = bare.indexOf('?');
  if (query === -1) return undefined;
  for (const pair of bare.slice(query + 1).split('&')) {
    const key = pair.split('=')[0] ?? '';
    if (key !== '' && !KNOWN_OPTIONS.has(flatKey(key))) return key;
  }
  return undefined;
}

/** What the client's parse error says is expected, without the part of the string it quotes. */
function parseProblemOf(error: unknown): string {
  const expected = (error as { expected?: unknown } | null)?.expected;
  const location = (error as { location?: unknown } | null)?.location;
  const at = Array.isArray(location) && typeof location[0] === 'number' ? ` at character ${location[0] + 1}` : '';
  return typeof expected === 'string' ? `the connection string does not parse${at}: expected ${expected}` : 'the connection string does not parse';
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // The client's errors often carry only their class name as message; their `type` says more.
  const type = (error as { type?: unknown }).type;
  const message = error.message.trim();
  if ((message === '' || message === error.constructor.name) && typeof type === 'string') return type;
  return message || error.constructor.name;
}

/**
 * The subscription loops' sleep: `wait()` resolves at the next `signal()` (data, end, error or
 * stop), or at once when one came since the last wait: a signal while the loop was busy handing a
 * batch over (the stream's 'readable' fires once, not again for data already buffered) would
 * otherwise be lost, and buffered events would wait for the next one to arrive.
 */
export function wakeUp(): { signal: () => void; wait: () => Promise<void> } {
  let wake: (() => void) | undefined;
  let signalled = false;
  return {
    signal: () => {
      const w = wake;
      wake = undefined;
      if (w) w();
      else signalled = true;
    },
    wait: () => {
      if (signalled) {
        signalled = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => (wake = resolve));
    },
  };
}

/** A sleep that `wake()` cuts short (a subscription stopping does not wait out a retry's pause). */
function stoppableSleep(): { sleep: (ms: number) => Promise<void>; wake: () => void } {
  const sleepers = new Set<() => void>();
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          sleepers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        sleepers.add(done);
      }),
    wake: () => {
      for (const done of [...sleepers]) done();
    },
  };
}

/** An append the server refused for its size: nothing was appended (an append is all or nothing). */
const tooLargeForTheLog = (limit: string) =>
  partTooLarge({ title: 'Too large for the event log', detail: `What this request records, sealed, is more than ${limit}; send less, or raise the limit` });
