import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type EventStore,
  GroupReactorRunner,
  LeaseKeeper,
  processHolderId,
  type Projection,
  ProjectionRunner,
  reactorGroup,
  settleSuccession,
} from '#warden/eventstore';
import type { Clock } from '#warden/kernel';
import { CheckpointConflictError } from '#warden/readstore';
import { CLOCK, Metrics, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { SharedCatchUp } from './shared-catch-up.js';
import { STORAGE } from './storage.tokens.js';
import type { Storage } from './storage.js';

/**
 * A background projection (the audit trail) waits while another runner of this process is more
 * than this many events behind the log's head: a burst the process cannot keep up with. Below it
 * (a batch or two) everything runs as events come. Embedded log only (Storage.sequentialPositions).
 */
export const FOREGROUND_LAG_EVENTS = 2000;
/** Never longer than this before each batch: under lasting overload the audit trail still moves. */
export const BACKGROUND_MAX_WAIT_MS = 2000;
/** How often a waiting background projection looks again (and how long a lag measurement is reused). */
const BACKGROUND_POLL_MS = 50;

/**
 * The projections another thread of this process runs (the read-model thread,
 * docs/architecture.md), as the host reaches them: by message, each answer awaited.
 */
export interface ProjectionDelegate {
  /** Resolves once the thread's read model of `name` reflects the log up to its head (ProjectionHost.catchUp there). */
  catchUp(name: string): Promise<void>;
  /** The same with ProjectionHost.catchUpTo there. */
  catchUpTo(name: string, position: number, waitMs: number): Promise<void>;
  /** Stops the thread's projections after their batch in progress, and ends the thread. */
  stop(): Promise<void>;
}

/** The delegate could not do it: the thread has ended. The host then runs the projection itself. */
export class DelegateGoneError extends Error {
  constructor(reason: string) {
    super(`read-model thread gone: ${reason}`);
    this.name = 'DelegateGoneError';
  }
}

/** How one reactor runs in this process. */
interface ReactorSlot {
  readonly runner: ProjectionRunner;
  /** Embedded profile: the reactor runs only while this process holds its lease. */
  keeper?: LeaseKeeper;
  /** KurrentDB: one member of the reactor's consumer group. */
  group?: GroupReactorRunner;
}

/**
 * Runs every registered projection. Modules register theirs at init; the worker role starts
 * them; any role can ask for a synchronous catch-up (e.g. before answering "unknown key").
 *
 * Several worker processes share the work (docs/operations.md, "Several workers"). Read-model projections run in
 * every worker: their checkpoint moves by compare-and-set with their writes, so two runners of
 * one projection never apply an event twice. Reactors act on the world, so each runs once: with
 * KurrentDB as a member of a persistent-subscription consumer group (competing consumers, the
 * server keeps the checkpoint); on the embedded log only in the worker that holds its lease, the
 * others standing by to take over when the holder stops renewing it.
 */
@Injectable()
export class ProjectionHost {
  private readonly logger = new Logger('projections');
  private readonly runners = new Map<string, ProjectionRunner>();
  private readonly catchUps = new Map<string, SharedCatchUp>();
  private readonly reactors = new Map<string, ReactorSlot>();
  /** Per projection: batches committed and catch-ups finished by this process (see localProgress). */
  private readonly progress = new Map<string, number>();
  private readonly holder = processHolderId();
  private lagTimer: NodeJS.Timeout | undefined;
  /** The last measurement of whether the others are behind, shared by the waiting background runners. */
  private foregroundLag: { readonly at: number; readonly behind: Promise<boolean> } | undefined;
  /** The projections the read-model thread runs, and their positions as it last reported them. */
  private delegated: { readonly to: ProjectionDelegate; readonly positions: Map<string, number>; lost?: boolean } | undefined;
  /** Per delegated projection, the thread's total of held batches counted so far (delegatedBackgroundWaits). */
  private readonly delegatedWaits = new Map<string, number>();
  private lifecycle: Promise<unknown> = Promise.resolve();
  private readonly progressListeners: Array<(name: string, position: number) => void> = [];
  private started = false;
  private stopRequested = false;

  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    private readonly metrics: Metrics,
    @Inject(WARDEN_CONFIG) private readonly config: Pick<WardenConfig, 'reactorLease'>,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  register(projection: Projection): void {
    if (this.runners.has(projection.name)) throw new Error(`Projection ${projection.name} registered twice`);
    const log = projection.log === 'as-stored' ? this.storage.storedEvents : this.storage.events;
    const runner = new ProjectionRunner(projection, log, this.storage.readStore, {
      onError: (name, error) =>
        // Another runner moved the checkpoint first (a console read's catch-up, in this process or
        // the api's, a second worker, a rebuild): expected, and this one goes on from there.
        error instanceof CheckpointConflictError
          ? this.logger.debug({ msg: 'projection checkpoint moved by another runner: going on from there', projection: name })
          : this.logger.warn({ msg: 'projection restarting', projection: name, error: String(error) }),
      onProgress: (name, position) => {
        this.progressed(name, position);
        for (const listener of this.progressListeners) listener(name, position);
      },
      // Only where a lag in positions is a number of events, and reactors run as runners here: the
      // embedded log (on KurrentDB, positions are commit positions and reactors are group members).
      beforeBatch: projection.background && this.storage.sequentialPositions ? (stopped) => this.yieldToForeground(projection.name, stopped) : undefined,
    });
    this.runners.set(projection.name, runner);
    this.catchUps.set(projection.name, new SharedCatchUp(() => runner.catchUp()));
  }

  /**
   * Changes whenever this process committed a batch of the projection (a catch-up's or its
   * subscription's) or finished catching it up (a catch-up whose batch another process had
   * committed first included): a reader that keeps what it read for a moment reads afresh after.
   */
  localProgress(name: string): number {
    return this.progress.get(name) ?? 0;
  }

  /** A batch of `name` committed up to `position`, here or on the read-model thread. */
  private progressed(name: string, position: number): void {
    this.noteProgress(name);
    this.metrics.projectionPosition.set({ projection: name }, position);
  }

  private noteProgress(name: string): void {
    this.progress.set(name, (this.progress.get(name) ?? 0) + 1);
  }

  projections(): Projection[] {
    return [...this.runners.values()].map((r) => r.projection);
  }

  /** True once stopAll has begun (a shutdown). */
  get stopping(): boolean {
    return this.stopRequested;
  }

  /** The read-model projections that run on the read-model thread where there is one (Projection.ownThread). */
  ownThreadProjections(): string[] {
    return this.projections()
      .filter((p) => p.ownThread === true && !p.reactor)
      .map((p) => p.name);
  }

  /**
   * From now on `names` run on another thread: catch-ups are passed to `delegate`, and startAll
   * leaves them out. Those already running here stop after their batch in progress; resolves once
   * they have, so that the thread goes on from their stored checkpoints. If the thread ends
   * (delegateLost), they run here again. False, and nothing handed over, once the host is stopping.
   */
  delegate(names: readonly string[], delegate: ProjectionDelegate): Promise<boolean> {
    const runners = names.map((name) => this.readModelRunner(name));
    if (this.stopRequested) return Promise.resolve(false);
    // At once: catch-ups go to the thread from now on (it answers once it has booted), and a start
    // under way leaves these out. The runners already running here stop in turn.
    const delegated = { to: delegate, positions: new Map(runners.map((r) => [r.projection.name, r.checkpoint])) };
    this.delegated = delegated;
    return this.inTurn(async () => {
      // Taken back meanwhile (the thread ended): the take-back, queued after this, starts them again.
      await Promise.all(runners.map((r) => r.stop()));
      return true;
    });
  }

  /** The thread committed a batch of `name` (or caught it up): readers that keep what they read read afresh. */
  delegatedProgress(name: string, position: number): void {
    if (!this.delegated?.positions.has(name)) return;
    this.delegated.positions.set(name, position);
    this.progressed(name, position);
  }

  /**
   * A delegated projection's held batches on the read-model thread, as the thread's running total
   * for it: counted into this process's `warden_projection_background_waits_total`, which
   * `/metrics` shows (the thread has a registry of its own that nothing scrapes).
   */
  delegatedBackgroundWaits(name: string, total: number): void {
    const counted = this.delegatedWaits.get(name) ?? 0;
    if (total <= counted) return;
    this.delegatedWaits.set(name, total);
    this.metrics.backgroundWaits.inc({ projection: name }, total - counted);
  }

  /**
   * The read-model thread ended unexpectedly: its projections run here from their stored
   * checkpoints. After a start or a hand-over under way (inTurn), so that no runner starts twice.
   */
  delegateLost(reason: string): Promise<void> {
    // Catch-ups from now on run here; the runners start in turn.
    const delegated = this.delegated;
    if (!delegated || delegated.lost) return Promise.resolve();
    delegated.lost = true;
    this.logger.error({ msg: 'read-model thread ended: its projections run on the main thread', reason });
    return this.inTurn(async () => {
      if (this.delegated === delegated) this.delegated = undefined;
      // Stopped meanwhile (a shutdown), or never started here: nothing to take back.
      if (!this.started || this.stopRequested) return;
      for (const name of delegated.positions.keys()) {
        const runner = this.runners.get(name);
        if (runner && !runner.following && !this.stopRequested) await runner.start();
      }
    });
  }

  /** Calls `listener` after every batch a runner of this thread commits (the read-model thread reports them so). */
  onProgress(listener: (name: string, position: number) => void): void {
    this.progressListeners.push(listener);
  }

  /** Starts the read-model projections named (the read-model thread's share), no reactor; nothing once stopping. */
  startOnly(names: readonly string[]): Promise<void> {
    const runners = names.map((name) => this.readModelRunner(name));
    return this.inTurn(async () => {
      this.started = true;
      for (const runner of runners) if (!this.stopRequested) await runner.start();
    });
  }

  /** Whether the projection follows the log on this thread (its runner subscribed here). */
  runsHere(name: string): boolean {
    return this.runners.get(name)?.following === true;
  }

  /** The position the projection's runner on this thread has reached (0 before it has loaded its checkpoint). */
  positionOf(name: string): number {
    return this.runners.get(name)?.checkpoint ?? 0;
  }

  private readModelRunner(name: string): ProjectionRunner {
    const runner = this.runners.get(name);
    if (!runner || runner.projection.reactor) throw new Error(`No read-model projection ${name}`);
    return runner;
  }

  /**
   * Starting, handing over and taking back run one after another: a thread that ends while the
   * host starts its runners or hands them over takes them back only after, so none starts twice.
   */
  private inTurn<T>(step: () => Promise<T>): Promise<T> {
    const run = this.lifecycle.then(step);
    this.lifecycle = run.catch(() => undefined);
    return run;
  }

  private isDelegated(name: string): boolean {
    return this.delegated?.positions.has(name) === true && !this.delegated.lost;
  }

  /** Passes a catch-up to the read-model thread; false when the thread has gone (the caller then catches up here). */
  private async passOn(name: string, ask: (to: ProjectionDelegate) => Promise<void>): Promise<boolean> {
    if (!this.isDelegated(name)) return false;
    try {
      await ask(this.delegated!.to);
    } catch (error) {
      if (error instanceof DelegateGoneError) return false;
      throw error;
    }
    this.noteProgress(name);
    return true;
  }

  /**
   * Creates the indexes the projections declare (every role: the api role queries them too), and
   * drops those they retired (`retiredIndexes`; docs/operations.md, "Read-model indexes").
   */
  async ensureIndexes(): Promise<void> {
    for (const projection of this.projections()) {
      for (const index of projection.indexes ?? []) await this.storage.readStore.ensureIndex(index.collection, index.fields);
      for (const index of projection.retiredIndexes ?? []) {
        if (await this.storage.readStore.dropIndex(index.collection, index.fields)) {
          this.logger.log({ msg: 'retired read-model index dropped', collection: index.collection, fields: index.fields.join(',') });
        }
      }
    }
  }

  startAll(): Promise<void> {
    return this.inTurn(async () => {
      // A shutdown that began first (a signal while the server started) leaves everything stopped.
      if (this.stopRequested) return;
      this.started = true;
      await this.settleSuccessions();
      for (const runner of this.runners.values()) {
        if (this.stopRequested) return;
        if (this.isDelegated(runner.projection.name)) continue;
        if (runner.projection.reactor) await this.startReactor(runner);
        else await runner.start();
      }
      this.lagTimer = setInterval(() => void this.recordLag(), 5000);
      this.lagTimer.unref();
    });
  }

  /** Where each reactor that took over from others starts, stored before any reactor runs (settleSuccession). */
  private async settleSuccessions(): Promise<void> {
    for (const runner of this.runners.values()) {
      if (runner.projection.reactor && !this.isDelegated(runner.projection.name)) {
        await settleSuccession(this.storage.events, this.storage.readStore, runner.projection, reactorGroup);
      }
    }
  }

  /** Catches a projection up with the log; callers at the same time share runs (SharedCatchUp). */
  async catchUp(name: string): Promise<void> {
    const shared = this.catchUps.get(name);
    if (!shared) throw new Error(`Unknown projection ${name}`);
    if (await this.passOn(name, (to) => to.catchUp(name))) return;
    await shared.run();
    this.noteProgress(name);
  }

  /**
   * Makes sure the projection's read model reflects the log at least up to `position` (an event
   * this process has read or written): waits for the projection's own subscription when it runs in
   * this process, for at most `waitMs`, and catches up through `position` otherwise (another role,
   * a stopped or restarting runner); up to the head for an event without a known position.
   */
  async catchUpTo(name: string, position: number, waitMs = 1000): Promise<void> {
    const runner = this.runners.get(name);
    if (!runner) throw new Error(`Unknown projection ${name}`);
    if (await this.passOn(name, (to) => to.catchUpTo(name, position, waitMs))) return;
    if (position <= 0) return this.catchUp(name);
    if (runner.following && (await runner.reached(position, waitMs))) {
      this.noteProgress(name);
      return;
    }
    await runner.catchUp(position);
    this.noteProgress(name);
  }

  async stopAll(): Promise<void> {
    this.stopRequested = true;
    if (this.lagTimer) clearInterval(this.lagTimer);
    const reactors = [...this.reactors.values()];
    this.reactors.clear();
    const delegated = this.delegated;
    this.delegated = undefined;
    await Promise.all([
      delegated?.to.stop(),
      ...[...this.runners.values()].filter((r) => !r.projection.reactor).map((r) => r.stop()),
      ...reactors.map((slot) => (slot.keeper ? slot.keeper.end() : stopReactor(slot.runner.projection, slot.group ?? slot.runner))),
    ]);
  }

  private async startReactor(runner: ProjectionRunner): Promise<void> {
    const projection = runner.projection;
    const events = this.storage.events;
    if (hasGroups(events)) {
      const group = new GroupReactorRunner(projection, events, this.storage.readStore, {
        onError: (name, error) => this.logger.warn({ msg: 'reactor subscription error', reactor: name, error: String(error) }),
      });
      this.reactors.set(projection.name, { runner, group });
      await projection.activate?.();
      await group.start();
      return;
    }
    const leases = this.storage.leases;
    if (!leases) {
      this.reactors.set(projection.name, { runner });
      await projection.activate?.();
      await runner.start();
      return;
    }
    const keeper = new LeaseKeeper(
      leases,
      `reactor:${projection.name}`,
      this.holder,
      {
        start: async () => {
          await projection.activate?.();
          await runner.start();
        },
        stop: () => stopReactor(projection, runner),
      },
      {
        timing: this.config.reactorLease,
        clock: this.clock,
        onAcquired: (name) => this.logger.log({ msg: 'reactor lease taken: running here', lease: name }),
        // A graceful shutdown gives its leases up on purpose: only a lease lost otherwise is a warning.
        onLost: (name, reason) =>
          reason === 'shutting down'
            ? this.logger.log({ msg: 'reactor lease given up: stopping', lease: name, reason })
            : this.logger.warn({ msg: 'reactor lease given up: stopping', lease: name, reason }),
        onError: (name, error) => this.logger.warn({ msg: 'reactor lease error', lease: name, error: String(error) }),
      },
    );
    this.reactors.set(projection.name, { runner, keeper });
    await keeper.begin();
    if (!keeper.holding) this.logger.log({ msg: 'reactor standing by: another worker holds its lease', reactor: projection.name });
  }

  /** A background projection's wait before a batch of its subscription (Projection.background). */
  private async yieldToForeground(name: string, stopped: () => boolean): Promise<void> {
    const started = Date.now();
    let waited = false;
    while (!stopped() && Date.now() - started < BACKGROUND_MAX_WAIT_MS && (await this.foregroundBehind())) {
      if (!waited) this.metrics.backgroundWaits.inc({ projection: name });
      waited = true;
      await new Promise((resolve) => setTimeout(resolve, BACKGROUND_POLL_MS));
    }
  }

  /** Whether a runner of this process that is not background is far behind the log's head. */
  private foregroundBehind(): Promise<boolean> {
    const now = Date.now();
    if (!this.foregroundLag || now - this.foregroundLag.at >= BACKGROUND_POLL_MS) {
      this.foregroundLag = { at: now, behind: this.measureForegroundLag() };
    }
    return this.foregroundLag.behind;
  }

  private async measureForegroundLag(): Promise<boolean> {
    try {
      const head = await this.storage.events.headPosition();
      // Only runners following the log here: a reactor another worker holds, or a consumer-group
      // member, has no position of its own in this process.
      return [...this.runners.values()].some((r) => !r.projection.background && r.following && head - r.checkpoint > FOREGROUND_LAG_EVENTS);
    } catch {
      // The store unreachable: the batch itself will say so.
      return false;
    }
  }

  private async recordLag(): Promise<void> {
    try {
      const head = await this.storage.events.headPosition();
      for (const r of this.runners.values()) {
        // A standby's idle runner or a consumer-group member has no lag of its own to report.
        const slot = this.reactors.get(r.projection.name);
        if (slot?.group || (slot?.keeper && !slot.keeper.holding)) continue;
        const position = this.delegated?.positions.get(r.projection.name) ?? r.checkpoint;
        this.metrics.subscriptionLag.set({ projection: r.projection.name }, Math.max(0, head - position));
      }
    } catch {
      // The readiness probe reports an unreachable store; the gauge just keeps its last value.
    }
  }
}

function hasGroups(events: EventStore): events is EventStore & Required<Pick<EventStore, 'subscribeToGroup'>> {
  return typeof events.subscribeToGroup === 'function';
}

/** Stops the subscription (after its batch in progress), then lets the reactor let go of its own work. */
async function stopReactor(projection: Projection, runner: { stop(): Promise<void> }): Promise<void> {
  await runner.stop();
  await projection.deactivate?.();
}
