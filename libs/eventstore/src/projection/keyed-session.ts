import type { RecordedEvent } from '#warden/kernel';
import { CheckpointConflictError } from '#warden/readstore';
import type { EventStore, Subscription } from '../event-store.port.js';
import { DEFAULT_KEYED_LIMITS, type KeyedLimits, KeyedScheduler } from './keyed-scheduler.js';
import type { Projection, ProjectionContext } from './projection.js';

/** A reactor that orders its events by key (Projection.keyOf). */
export type KeyedProjection = Projection & Required<Pick<Projection, 'keyOf'>>;

/** Events read from the log at once, by the reader and by a re-read pass. */
const READ_BATCH = 500;

/**
 * A turn of the event loop, taken before each batch is offered or read again. The embedded log's
 * reads are synchronous behind their promises, and a handler with nothing to wait for (the
 * evaluation of a version fetched from a partial-items endpoint) settles on microtasks, so batch
 * after batch, and pass after pass, ran without one: 26,000 such events held the background
 * thread for 6.7 s, its leases were lost, and callbacks answered 200 meanwhile were counted as
 * timeouts (docs/benchmarks.md, "A tenth hunt"). With it, a turn handles one batch at most.
 */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** The checkpoint is stored at most this often, or after this many events handled, whichever comes first. */
const COMMIT_EVERY_MS = 1000;
const COMMIT_EVERY_EVENTS = 1000;

/** Reactors keep no read model: a keyed one's handler is given no place to write one. */
const NO_READ_MODEL: ProjectionContext = {
  get: () => Promise.reject(new Error('A keyed reactor has no read model')),
  put: () => {
    throw new Error('A keyed reactor has no read model');
  },
  delete: () => {
    throw new Error('A keyed reactor has no read model');
  },
  writtenBefore: () => Promise.reject(new Error('A keyed reactor has no read model')),
};

export const keyedLimits = (projection: Projection): KeyedLimits => ({ ...DEFAULT_KEYED_LIMITS, ...projection.limits });

/** Runs a run of one key's events of a keyed reactor, in order: together where it handles batches. */
export const keyedHandler = (projection: Projection) => async (events: readonly RecordedEvent[]) => {
  if (projection.applyBatch) return projection.applyBatch(events, NO_READ_MODEL);
  for (const event of events) await projection.apply(event, NO_READ_MODEL);
};

export interface KeyedSessionOptions {
  readonly projection: KeyedProjection;
  readonly events: EventStore;
  /** What is read of each event (ProjectionRunner's read scope). */
  readonly scope: { readonly eventTypes?: readonly string[]; readonly personalData?: boolean };
  /** The checkpoint: everything up to it is handled. */
  readonly after: number;
  /** Stores the checkpoint (compare-and-set from the stored one); throws CheckpointConflictError when another runner moved it. */
  readonly commit: (to: number) => Promise<void>;
  /** The watermark moved: everything up to it is handled. */
  readonly onAdvance: (position: number) => void;
}

/**
 * One run of a keyed reactor from its checkpoint (ProjectionRunner): reads the log ahead into a
 * KeyedScheduler while its window has room, re-reads what it deferred when it can be taken, and
 * stores the scheduler's watermark as the checkpoint, batched (at most every second or every
 * thousand events handled), by the runner's compare-and-set. A run ends at stop (`follow`) or at
 * the head of the log (`drain`); either way it lets the handlers under way finish and stores how
 * far it got. A failed handler, read or commit ends it too; the runner starts a new one from the
 * checkpoint.
 */
export class KeyedSession {
  private readonly scheduler: KeyedScheduler;
  private stopping = false;
  private waiters: Array<() => void> = [];
  private passing = false;
  private committing: Promise<void> | undefined;
  private commitTimer: NodeJS.Timeout | undefined;
  private committed: number;
  private committedAt = 0;
  private handledAtCommit = 0;
  private reported: number;
  private error: { readonly error: unknown } | undefined;
  private onError: ((error: unknown) => void) | undefined;

  constructor(private readonly options: KeyedSessionOptions) {
    const { projection } = options;
    this.committed = this.reported = options.after;
    this.scheduler = new KeyedScheduler({
      keyOf: (event) => projection.keyOf(event),
      ...(projection.groupOf ? { groupOf: (event: RecordedEvent) => projection.groupOf!(event) } : {}),
      handle: keyedHandler(projection),
      eventTypes: projection.eventTypes,
      after: options.after,
      limits: keyedLimits(projection),
      onChange: () => this.changed(),
    });
  }

  /** Follows the log by a subscription until stopped; `onError`: the run ended by a failure. */
  follow(onError: (error: unknown) => void): Subscription {
    this.onError = onError;
    const subscription = this.options.events.subscribeToAll({
      after: this.options.after,
      ...this.options.scope,
      onEvents: (events, through) => this.take(events, through ?? events.at(-1)?.position ?? 0),
      onError: (error) => this.fail(error),
    });
    return {
      stop: async () => {
        this.stopping = true;
        this.wake();
        await subscription.stop();
        await this.finish();
      },
    };
  }

  /** Handles everything up to `head`; rejects with the first failure, having stored how far it got. */
  async drain(head: number): Promise<void> {
    let after = this.options.after;
    try {
      while (!this.error && after < head) {
        const batch = await this.options.events.readAll({ after, maxCount: READ_BATCH, ...this.options.scope });
        if (batch.length === 0) break;
        after = batch.at(-1)!.position;
        await this.take(batch, after);
      }
      await this.until(() => this.scheduler.drained);
    } catch (error) {
      this.fail(error);
    }
    this.stopping = true;
    await this.finish();
    if (this.error) throw this.error.error;
  }

  /** The reader's batch; resolves when the window has room for the next (or the run ends). */
  private async take(events: readonly RecordedEvent[], through: number): Promise<void> {
    await nextTurn();
    // Stopped (or failed) during the turn: nothing more starts, as the scheduler halts.
    if (this.stopping || this.error) return;
    this.scheduler.offer(events, through);
    this.changed();
    await this.until(() => !this.scheduler.full);
  }

  /** Resolves once `ready` holds, or the run is ending. */
  private async until(ready: () => boolean): Promise<void> {
    while (!ready() && !this.stopping && !this.error) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  private changed(): void {
    if (this.scheduler.failure) this.fail(this.scheduler.failure.error);
    const mark = this.scheduler.watermark;
    if (mark > this.reported) {
      this.reported = mark;
      this.options.onAdvance(mark);
      this.commitWhenDue();
    }
    this.wake();
    void this.reread();
  }

  /** A pass over the log for deferred events that can be taken now, from the first of them. */
  private async reread(): Promise<void> {
    if (this.passing || this.stopping) return;
    let after = this.scheduler.rereadAfter();
    if (after === undefined) return;
    this.passing = true;
    try {
      while (after !== undefined && !this.stopping) {
        await nextTurn();
        if (this.stopping) break;
        const batch = await this.options.events.readAll({ after, maxCount: this.scheduler.rereadSpan(after, READ_BATCH), ...this.options.scope });
        if (batch.length === 0) break;
        this.scheduler.redeliver(batch, after);
        after = this.scheduler.nextRereadAfter(batch.at(-1)!.position);
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.passing = false;
    }
    // Handled meanwhile: maybe worth another pass.
    void this.reread();
  }

  private commitWhenDue(): void {
    if (this.committing || this.stopping || this.scheduler.watermark <= this.committed) return;
    const wait = COMMIT_EVERY_MS - (Date.now() - this.committedAt);
    if (wait > 0 && this.scheduler.handled - this.handledAtCommit < COMMIT_EVERY_EVENTS) {
      this.commitTimer ??= setTimeout(() => {
        this.commitTimer = undefined;
        this.commitWhenDue();
      }, wait);
      this.commitTimer.unref();
      return;
    }
    this.committing = this.commit().finally(() => {
      this.committing = undefined;
      this.commitWhenDue();
    });
  }

  private async commit(): Promise<void> {
    const to = this.scheduler.watermark;
    const handled = this.scheduler.handled;
    try {
      await this.options.commit(to);
      this.committed = to;
      this.committedAt = Date.now();
      this.handledAtCommit = handled;
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.error) return;
    this.error = { error };
    this.scheduler.halt();
    this.wake();
    this.onError?.(error);
  }

  /** Lets the handlers under way finish, then stores the watermark. */
  private async finish(): Promise<void> {
    this.scheduler.halt();
    clearTimeout(this.commitTimer);
    await this.scheduler.idle();
    await this.committing;
    if (this.scheduler.watermark <= this.committed) return;
    try {
      await this.options.commit(this.scheduler.watermark);
    } catch (error) {
      // Another runner moved the checkpoint: the next run reloads it.
      if (!(error instanceof CheckpointConflictError)) this.error ??= { error };
    }
  }
}
