import type { RecordedEvent } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import { type EventStore, EventsFailedError, type GroupSubscribeOptions, type Subscription } from '../event-store.port.js';
import { type Failure, KeyedLanes } from './keyed-lanes.js';
import { keyedHandler, keyedLimits } from './keyed-session.js';
import type { Projection } from './projection.js';
import { applyEvents } from './unit-of-work.js';
import { groupStart } from './succession.js';

export interface GroupReactorRunnerOptions {
  /** The subscription dropped (it is re-established) or a batch failed (it is retried). */
  readonly onError?: (reactor: string, error: unknown) => void;
  /** Wait before re-subscribing after a drop. */
  readonly retryDelayMs?: number;
}

/** A batch the group handed over: settled once all its events ran (or failed). */
interface Batch {
  settled: boolean;
}

/** The consumer group a reactor's workers share. */
export const reactorGroup = (reactor: string) => `warden-${reactor}`;

/**
 * Runs a reactor as one member of a consumer group (competing consumers): every worker process
 * gets a share of its events and the server keeps the checkpoint. Reactors are idempotent (their
 * effects carry ids derived from the causing event), so the group's redeliveries are harmless.
 *
 * A reactor with an ordering key (Projection.keyOf) gets the same per-key concurrency as under
 * ProjectionRunner, within what the group hands this member: the group pins each stream to one
 * member (KurrentDB's `Pinned` consumer strategy, by the event's stream, best effort: a member
 * joining or leaving moves streams), and the member's batches overlap (the adapter takes the next
 * while earlier ones are handled, up to the member's buffer of unacknowledged events), so a busy
 * key holds up only its own later events. Each event waits behind its key's earlier ones in this
 * process (KeyedLanes); a batch is acknowledged once all its events are handled, or, when some
 * failed, the failing keys' events are handed back for a retry and the rest acknowledged; a failing
 * key's later events queued from batches that overlap fail without running, and go back too (run,
 * they came before the retry). The server keeps the checkpoint: it moves past the oldest
 * unacknowledged event only, and redelivers what is not acknowledged in time. Order within a key
 * holds within a member; across members (a key whose events live in several streams, such as a
 * user's strikes), the expected-revision checks of the commands keep the outcome right.
 */
export class GroupReactorRunner {
  private subscription: Subscription | undefined;
  private stopped = true;
  /** Starts and stops so far: a start whose first read ends after a later stop or start subscribes nothing. */
  private runs = 0;
  private retry: NodeJS.Timeout | undefined;
  private readonly lanes: KeyedLanes | undefined;
  /**
   * Keys whose event failed: their later events queued meanwhile (a batch that overlaps) fail too,
   * without running, and go back to the group with it, until the batches whose events failed by
   * running have been handed back and the key has nothing queued. Run, they would have been
   * handled before the failed event's retry; so would one that came while the failed event's
   * batch still waited for another key's (cleared once the key had nothing queued, it ran).
   */
  private readonly failing = new Map<string, { readonly error: unknown; readonly batches: ReadonlySet<Batch> }>();
  /** The batch each event in the lanes came in. */
  private readonly batchOf = new WeakMap<RecordedEvent, Batch>();
  /** Without a key, batches are handled one after the other, as they come (they may overlap). */
  private serial: Promise<void> = Promise.resolve();

  constructor(
    readonly projection: Projection,
    private readonly events: EventStore & Required<Pick<EventStore, 'subscribeToGroup'>>,
    private readonly store: ReadStore,
    private readonly options: GroupReactorRunnerOptions = {},
  ) {
    if (projection.keyOf) {
      const limits = keyedLimits(projection);
      const handle = keyedHandler(projection);
      const keyOf = projection.keyOf.bind(projection);
      const handleInOrder = async (events: readonly RecordedEvent[]) => {
        const key = keyOf(events[0]!);
        const failed = this.failing.get(key);
        if (failed) throw failed.error;
        try {
          await handle(events);
        } catch (error) {
          this.failing.set(key, { error, batches: new Set(events.map((event) => this.batchOf.get(event)!)) });
          throw error;
        }
      };
      this.lanes = new KeyedLanes(handleInOrder, limits.concurrency, limits.perGroup, limits.perOrg);
    }
  }

  async start(): Promise<void> {
    const run = ++this.runs;
    this.stopped = false;
    // A group created now continues where the reactor's own checkpoint left off (a deployment
    // that ran it as a catch-up subscription before), or its predecessors' groups, not at the start of the log.
    const startAfter = await groupStart(this.events, this.store, this.projection, reactorGroup);
    // Stopped (or stopped and started again) while that was read: this start subscribes nothing.
    if (this.stopped || run !== this.runs) return;
    this.subscribe(startAfter);
  }

  async stop(): Promise<void> {
    this.runs++;
    this.stopped = true;
    clearTimeout(this.retry);
    const sub = this.subscription;
    this.subscription = undefined;
    await sub?.stop();
  }

  private subscribe(startAfter: number): void {
    const options: GroupSubscribeOptions = {
      group: reactorGroup(this.projection.name),
      eventTypes: this.projection.eventTypes,
      personalData: this.projection.needsPersonalData,
      startAfter,
      onEvents: (events) => this.handle(events),
      onRetry: (error) => this.options.onError?.(this.projection.name, error),
      onError: (error) => {
        if (this.stopped) return;
        this.options.onError?.(this.projection.name, error);
        const sub = this.subscription;
        this.subscription = undefined;
        void sub?.stop().finally(() => {
          if (this.stopped) return;
          this.retry = setTimeout(() => {
            if (!this.stopped) this.subscribe(startAfter);
          }, this.options.retryDelayMs ?? 1000);
        });
      },
    };
    this.subscription = this.events.subscribeToGroup(options);
  }

  private handle(events: readonly RecordedEvent[]): Promise<void> {
    if (this.lanes) return this.handleKeyed(this.lanes, events);
    const run = this.serial.then(async () => {
      const { uow } = await applyEvents(this.projection, events, this.store);
      const writes = uow.writes();
      if (writes.length > 0) await this.store.commit(writes);
    });
    this.serial = run.catch(() => undefined);
    return run;
  }

  /**
   * Each event behind its key's earlier ones. Once all have run, fails with the first failure,
   * naming the events of every key that had one (EventsFailedError): those go back to the group
   * together, so a key's events are retried in their order, and the other keys' are acknowledged
   * rather than handled again (and, with an outage, parked with the failing ones).
   */
  private async handleKeyed(lanes: KeyedLanes, events: readonly RecordedEvent[]): Promise<void> {
    const keyOf = this.projection.keyOf!.bind(this.projection);
    const groupOf = this.projection.groupOf?.bind(this.projection);
    const wanted = new Set(this.projection.eventTypes);
    const ordered = events.filter((e) => wanted.has(e.type)).sort((a, b) => a.position - b.position);
    const keys = ordered.map((event) => keyOf(event));
    const batch: Batch = { settled: false };
    for (const event of ordered) this.batchOf.set(event, batch);
    const failures = await Promise.all(
      ordered.map(
        (event, i) =>
          new Promise<Failure>((settle) =>
            lanes.push(
              keys[i]!,
              event.metadata.orgId,
              event,
              (failure) => {
                this.unblock(lanes, keys[i]!);
                settle(failure);
              },
              groupOf?.(event),
            ),
          ),
      ),
    );
    batch.settled = true;
    for (const key of new Set(keys)) this.unblock(lanes, key);
    const first = failures.find((f) => f !== undefined);
    if (!first) return;
    const failedKeys = new Set(keys.filter((_, i) => failures[i] !== undefined));
    throw new EventsFailedError(new Set(ordered.filter((_, i) => failedKeys.has(keys[i]!)).map((e) => e.id)), first.error);
  }

  /** A failing key's next events run again once its failed events' batches went back and nothing of it is queued. */
  private unblock(lanes: KeyedLanes, key: string): void {
    const failing = this.failing.get(key);
    if (failing && lanes.heldFor(key) === 0 && [...failing.batches].every((b) => b.settled)) this.failing.delete(key);
  }
}
