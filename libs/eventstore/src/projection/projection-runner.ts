import type { RecordedEvent } from '#warden/kernel';
import { CheckpointConflictError, type ReadStore } from '#warden/readstore';
import type { EventStore, Subscription } from '../event-store.port.js';
import { type KeyedProjection, KeyedSession } from './keyed-session.js';
import type { Projection } from './projection.js';
import { applyEvents } from './unit-of-work.js';
import { loadCheckpoint } from './succession.js';

export interface ProjectionRunnerOptions {
  readonly onError?: (projection: string, error: unknown) => void;
  /** Reports how far behind the head of the log the projection is, in events of the log. */
  readonly onProgress?: (projection: string, position: number) => void;
  /**
   * Awaited before the subscription's next batch is applied (not before a catch-up's): a
   * background projection's wait for the others (ProjectionHost). `stopped` tells it to end early.
   */
  readonly beforeBatch?: (stopped: () => boolean) => Promise<void>;
}

/** Someone waiting for the runner's progress (see reached, and a keyed reactor's catch-up). */
interface Waiter {
  readonly position: number;
  readonly done: (reached: boolean) => void;
  /** A catch-up's wait: it outlasts the runner's restarts after a moved checkpoint, and fails with any other error. */
  readonly failed?: (error: unknown) => void;
}

/**
 * Keeps one projection's read model up to date: subscribes from the stored checkpoint and
 * commits each batch with the checkpoint move. Events at or before the checkpoint are skipped,
 * so at-least-once delivery applies each event once. If another process moved the checkpoint
 * (a rebuild, a second worker), the runner reloads it and goes on from there.
 *
 * A reactor with an ordering key (Projection.keyOf) runs by key instead of by batch (KeyedSession):
 * its position is the watermark, the last event before the oldest one not yet handled.
 */
export class ProjectionRunner {
  /** How far the read model reflects the log (see `position`). */
  private at = 0;
  /** Callers waiting for the read model to reflect the log up to a position (see reached). */
  private waiters: Waiter[] = [];
  private subscription: Subscription | undefined;
  private queue: Promise<void> = Promise.resolve();
  private stopped = true;
  /**
   * Counts starts and stops: a start or a restart that finds it changed after an await belongs to
   * a run that has ended, and must not subscribe (stop() would never see that subscription).
   */
  private run = 0;
  private loaded = false;
  /** The checkpoint as stored; `position` may run ahead of it over irrelevant events. */
  private stored = 0;
  private storedAt = 0;

  constructor(
    readonly projection: Projection,
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    if (projection.applyBatch && projection.collections.length > 0) {
      throw new Error(`Projection ${projection.name}: applyBatch is for projections without read models; use apply`);
    }
    if (projection.keyOf && (!projection.reactor || projection.collections.length > 0)) {
      throw new Error(`Projection ${projection.name}: keyOf is for reactors, which keep no read model`);
    }
    // A keyed run re-reads a deferred stretch by counting the wanted events in it (rereadSpan): a
    // read of every event would count short and re-read the same stretch for ever.
    if (projection.keyOf && (projection.everyEvent || projection.log === 'as-stored')) {
      throw new Error(`Projection ${projection.name}: keyOf reads its event types only, not every event`);
    }
  }

  get checkpoint(): number {
    return this.position;
  }

  /** Everything up to here is reflected in the read model (committed, or irrelevant to it). */
  private get position(): number {
    return this.at;
  }

  private set position(value: number) {
    this.at = value;
    if (this.waiters.length > 0) this.release();
  }

  /** True while this runner follows the log by its subscription (not stopped, not restarting). */
  get following(): boolean {
    return !this.stopped && this.subscription !== undefined;
  }

  /**
   * Resolves true once the read model reflects the log up to `position` by this runner's own
   * progress, false after `timeoutMs` (or when the runner stops first): the caller then catches up
   * itself. Waiting costs nothing; a catch-up reads the log apart from the subscription's tail and
   * commits a batch of its own.
   */
  reached(position: number, timeoutMs: number): Promise<boolean> {
    if (this.position >= position) return Promise.resolve(true);
    if (!this.following) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), timeoutMs);
      timer.unref();
      const waiter: Waiter = { position, done: (reached: boolean) => finish(reached) };
      const finish = (reached: boolean) => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(reached);
      };
      this.waiters.push(waiter);
    });
  }

  private release(): void {
    for (const waiter of this.waiters.filter((w) => w.position <= this.at)) waiter.done(true);
  }

  async start(): Promise<void> {
    const run = ++this.run;
    this.stopped = false;
    // A keyed catch-up under way reads the log itself: following starts where it ended.
    if (this.keyed) await this.queue;
    let checkpoint: number;
    try {
      checkpoint = await loadCheckpoint(this.store, this.projection);
    } catch (error) {
      // Left started without a subscription, the runner would neither follow the log nor catch up
      // by itself: a keyed catch-up would wait for a progress that never comes. Stopped, the
      // catch-up reads the log itself, and the caller may start it again.
      if (run === this.run) this.stopped = true;
      throw error;
    }
    if (run !== this.run) return;
    this.position = this.stored = checkpoint;
    this.loaded = true;
    this.subscribe();
  }

  /**
   * Applies everything up to the current head of the log before resolving; with `through`, up to
   * that position at least (a read-after-write): under a log that grows faster than the projection
   * applies it, the head would keep running away (docs/benchmarks.md, "GDPR erasures under load").
   * A keyed reactor always catches up to the head.
   */
  catchUp(through = Number.POSITIVE_INFINITY): Promise<void> {
    if (this.keyed) return this.catchUpKeyed();
    return this.serialize(async () => {
      if (!this.loaded) {
        this.position = this.stored = await loadCheckpoint(this.store, this.projection);
        this.loaded = true;
      }
      // Read before the log is: every event at or below it is committed, so a read after it
      // that finds nothing more of interest has accounted for the log up to it.
      const head = await this.events.headPosition();
      for (;;) {
        if (this.position >= through) return;
        const batch = await this.events.readAll({
          after: this.position,
          maxCount: 500,
          ...this.readScope(),
        });
        if (batch.length === 0) {
          // Moved to the head, not left where the last event of interest was: a runner that does
          // not follow the log (the catalog's and identity's in a process that only catches them
          // up, on a request) would otherwise scan everything appended since then at every
          // catch-up, the whole log of every organization between two configuration changes (a
          // helper's hunt: 11 to 83 ms of the event loop per request, growing with the log).
          if (head <= this.position || (await this.movedThrough(head))) return;
          // Another writer moved the checkpoint: position holds its value, go on from there.
          continue;
        }
        try {
          await this.applyBatch(batch);
        } catch (error) {
          // Another writer moved the checkpoint; position now holds its value, go on from there.
          if (!(error instanceof CheckpointConflictError)) throw error;
        }
      }
    });
  }

  /**
   * A keyed reactor: while it follows the log, its own progress gets there (a second reader would
   * handle the same events again); stopped, it reads the log up to the head itself.
   */
  private async catchUpKeyed(): Promise<void> {
    // A wait that ends with the runner stopped and already started again (a lease lost and taken
    // back) waits for the new run: a catch-up of its own would run beside it, from the same
    // checkpoint, and start the same events of a key at once.
    for (let head: number | undefined; !this.stopped;) {
      head ??= await this.events.headPosition();
      if (await this.handledUpTo(head)) return;
    }
    return this.serialize(async () => {
      if (!this.loaded) {
        this.position = this.stored = await loadCheckpoint(this.store, this.projection);
        this.loaded = true;
      }
      await this.keyedSession().drain(await this.events.headPosition());
    });
  }

  /** True once the runner handled the log up to `position`; false when it stops first; fails with an error it restarts after. */
  private handledUpTo(position: number): Promise<boolean> {
    if (this.position >= position) return Promise.resolve(true);
    // Stopped while the head was read: no run of it gets there, and stop released its waiters already.
    if (this.stopped) return Promise.resolve(false);
    return new Promise<boolean>((resolve, reject) => {
      const settle = () => (this.waiters = this.waiters.filter((w) => w !== waiter));
      const waiter: Waiter = {
        position,
        done: (reached) => {
          settle();
          resolve(reached);
        },
        failed: (error) => {
          settle();
          reject(error);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Stops after the batch in progress is committed, storing how far it got. */
  async stop(): Promise<void> {
    this.run++;
    this.stopped = true;
    for (const waiter of [...this.waiters]) waiter.done(false);
    const sub = this.subscription;
    this.subscription = undefined;
    await this.ending(sub);
    await this.queue;
    if (this.position > this.stored) {
      await this.store
        .commit([], { projection: this.projection.name, from: this.stored, to: this.position })
        .then(() => (this.stored = this.position))
        .catch(() => undefined);
    }
  }

  private subscribe(): void {
    if (this.keyed) {
      this.subscription = this.keyedSession().follow((error) => this.restartAfter(error));
      return;
    }
    this.subscription = this.events.subscribeToAll({
      after: this.position,
      ...this.readScope(),
      onEvents: async (events, through) => {
        // Outside the serialized queue: a catch-up asked for meanwhile runs at once.
        await this.options.beforeBatch?.(() => this.stopped);
        return this.serialize(() => this.applyBatch(events, through));
      },
      onError: (error) => this.restartAfter(error),
    });
  }

  /** What the projection reads of each event: an 'as-stored' projection reads every event as it is. */
  private readScope(): { eventTypes?: readonly string[]; personalData?: boolean } {
    if (this.projection.log === 'as-stored') return { personalData: false };
    if (this.projection.everyEvent) return { personalData: this.projection.needsPersonalData };
    return { eventTypes: this.projection.eventTypes, personalData: this.projection.needsPersonalData };
  }

  private get keyed(): boolean {
    return this.projection.keyOf !== undefined;
  }

  /** A keyed reactor's run from the current position. */
  private keyedSession(): KeyedSession {
    return new KeyedSession({
      projection: this.projection as KeyedProjection,
      events: this.events,
      scope: this.readScope(),
      after: this.position,
      commit: (to) => this.commitCheckpoint(to),
      onAdvance: (position) => (this.position = position),
    });
  }

  /** Moves the stored checkpoint alone (compare-and-set from the stored one). */
  private async commitCheckpoint(to: number): Promise<void> {
    if (to <= this.stored) return;
    try {
      await this.store.commit([], { projection: this.projection.name, from: this.stored, to });
    } catch (error) {
      if (error instanceof CheckpointConflictError) this.position = this.stored = error.actual;
      throw error;
    }
    this.stored = to;
    this.storedAt = Date.now();
    this.options.onProgress?.(this.projection.name, to);
  }

  private restartAfter(error: unknown): void {
    if (this.stopped) return;
    // Whoever waits for this runner's progress catches up by itself instead of waiting out the
    // restart; a keyed catch-up waits on, unless a handler failed (catchUp fails with it, as a
    // batch's failure fails it).
    for (const waiter of [...this.waiters]) {
      if (!waiter.failed) waiter.done(false);
      else if (!(error instanceof CheckpointConflictError)) waiter.failed(error);
    }
    this.options.onError?.(this.projection.name, error);
    const sub = this.subscription;
    this.subscription = undefined;
    // Only within this run: stopped and started again meanwhile (a reactor's lease lost and taken
    // back), the new run follows the log already, and a second subscription would outlive its stop.
    const run = this.run;
    const current = () => run === this.run && !this.stopped;
    void (async () => {
      await this.ending(sub);
      await this.queue;
      if (!current()) return;
      await new Promise((r) => setTimeout(r, error instanceof CheckpointConflictError ? 0 : 1000));
      if (!current()) return;
      try {
        const checkpoint = await loadCheckpoint(this.store, this.projection);
        if (!current()) return;
        this.position = this.stored = checkpoint;
        this.subscribe();
      } catch (e) {
        if (current()) this.restartAfter(e);
      }
    })();
  }

  /**
   * Stops a subscription. A keyed run's stop lets its handlers under way finish: it is queued, so
   * that a catch-up or a new run queued meanwhile reads the log only after (it would start an event
   * still running, or a later one of its key, a second time at once). Not a batch's subscription:
   * its stop waits for the batch in progress, which may be about to queue itself.
   */
  private ending(sub: Subscription | undefined): Promise<void> {
    if (!sub) return Promise.resolve();
    const ended = sub.stop();
    if (this.keyed) this.queue = this.queue.then(() => ended).catch(() => undefined);
    return ended;
  }

  private serialize(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Nothing of interest up to `head`: the position moves there (the stored checkpoint as applyBatch
   * moves it). False when another writer had moved the checkpoint (position then holds its value).
   */
  private async movedThrough(head: number): Promise<boolean> {
    try {
      await this.applyBatch([], head);
      return true;
    } catch (error) {
      if (!(error instanceof CheckpointConflictError)) throw error;
      return false;
    }
  }

  private async applyBatch(events: readonly RecordedEvent[], through = 0): Promise<void> {
    const to = Math.max(through, events.length > 0 ? events[events.length - 1]!.position : 0);
    if (to <= this.position) return;
    const fresh = events.filter((e) => e.position > this.position);
    const { uow, applied } = await applyEvents(this.projection, fresh, this.store);
    const writes = uow.writes();
    // A batch with nothing for this projection only moves the checkpoint: that write may wait
    // (a restart re-reads those events and skips them again), so busy logs cost no commits.
    if (writes.length === 0 && applied === 0 && !this.checkpointDue()) {
      this.position = to;
      return;
    }
    try {
      await this.store.commit(writes, { projection: this.projection.name, from: this.stored, to });
    } catch (error) {
      if (error instanceof CheckpointConflictError) this.position = this.stored = error.actual;
      throw error;
    }
    this.position = this.stored = to;
    this.storedAt = Date.now();
    this.options.onProgress?.(this.projection.name, to);
  }

  private checkpointDue(): boolean {
    return Date.now() - this.storedAt > 1000;
  }
}

/** Drops the projections' read models and replays the whole log into them. */
export async function rebuildReadModels(all: readonly Projection[], events: EventStore, store: ReadStore): Promise<void> {
  const projections = all.filter((p) => !p.reactor && p.log !== 'as-stored');
  await store.reset(
    projections.flatMap((p) => p.collections),
    projections.map((p) => p.name),
  );
  for (const p of projections) await new ProjectionRunner(p, events, store).catchUp();
}
