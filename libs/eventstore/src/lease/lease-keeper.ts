import { type Clock, systemClock } from '#warden/kernel';
import type { LeaseStore } from './lease-store.port.js';

export interface LeaseTiming {
  /** How long a taken or renewed lease lasts without a renewal. */
  readonly ttlMs: number;
  /** How often the holder renews and a standby tries to take the lease. */
  readonly renewEveryMs: number;
}

export const DEFAULT_LEASE_TIMING: LeaseTiming = { ttlMs: 10_000, renewEveryMs: 3_000 };

/** What runs while the lease is held. */
export interface LeasedWork {
  start(): Promise<void>;
  /** Resolves once the work has stopped (its batch in progress is done). */
  stop(): Promise<void>;
}

export interface LeaseKeeperOptions {
  readonly timing?: LeaseTiming;
  readonly clock?: Clock;
  readonly onAcquired?: (name: string) => void;
  readonly onLost?: (name: string, reason: string) => void;
  readonly onError?: (name: string, error: unknown) => void;
}

/**
 * Runs a piece of work only while this process holds its lease: a standby tries to take the
 * lease every `renewEveryMs`; the holder renews it as often. A holder whose renewal is refused
 * stops at once; one whose renewals keep failing starts stopping a safety margin before the lease
 * would expire, so the work has stopped before another process may take it over.
 */
export class LeaseKeeper {
  private held = false;
  private heldUntil = 0;
  private ending = false;
  private timer: NodeJS.Timeout | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private tickInFlight: Promise<void> = Promise.resolve();
  private losing: Promise<void> | undefined;
  /** The work's last start (settled, never rejecting): a loss waits for it before stopping. */
  private starting: Promise<void> = Promise.resolve();
  /** The last start, its failure handled (the lease given up): what begin() waits for. */
  private started: Promise<void> = Promise.resolve();
  private readonly timing: LeaseTiming;
  private readonly clock: Clock;

  constructor(
    private readonly leases: LeaseStore,
    readonly name: string,
    private readonly holder: string,
    private readonly work: LeasedWork,
    private readonly options: LeaseKeeperOptions = {},
  ) {
    this.timing = options.timing ?? DEFAULT_LEASE_TIMING;
    if (!(this.timing.renewEveryMs > 0 && this.timing.renewEveryMs * 3 <= this.timing.ttlMs)) {
      throw new Error(`Lease ${name}: renew every ${this.timing.renewEveryMs} ms needs a lease of at least three times that, got ${this.timing.ttlMs} ms`);
    }
    this.clock = options.clock ?? systemClock;
  }

  get holding(): boolean {
    return this.held;
  }

  /** Tries once at once (a lone worker starts its work during start-up, awaited here), then keeps trying. */
  async begin(): Promise<void> {
    this.ending = false;
    await this.runTick();
    await this.started;
  }

  /** Stops the work if it runs here and gives the lease up, so a standby takes over at once. */
  async end(): Promise<void> {
    this.ending = true;
    clearTimeout(this.timer);
    await this.tickInFlight;
    if (this.held) {
      await this.lose('shutting down');
      await this.leases.release(this.name, this.holder).catch((error: unknown) => this.options.onError?.(this.name, error));
    }
  }

  private runTick(): Promise<void> {
    this.tickInFlight = this.tick().finally(() => {
      if (this.ending) return;
      this.timer = setTimeout(() => void this.runTick(), this.timing.renewEveryMs);
      this.timer.unref();
    });
    return this.tickInFlight;
  }

  private async tick(): Promise<void> {
    const askedAt = this.clock.now().getTime();
    if (!this.held) {
      let taken = false;
      try {
        taken = await this.leases.acquire(this.name, this.holder, this.timing.ttlMs);
      } catch (error) {
        this.options.onError?.(this.name, error);
      }
      if (!taken || this.ending) {
        if (taken) await this.leases.release(this.name, this.holder).catch(() => undefined);
        return;
      }
      this.held = true;
      this.extendTo(askedAt + this.timing.ttlMs);
      this.options.onAcquired?.(this.name);
      // Not awaited by the tick: renewals go on while the work starts. A start may catch a read
      // model up for longer than the lease's margin (the transparency submitter's, under a
      // backlog), and the lease was lost, the work stopped and started again, over and over.
      const start = this.work.start();
      this.starting = start.then(
        () => undefined,
        () => undefined,
      );
      this.started = start.then(
        () => undefined,
        async (error: unknown) => {
          this.options.onError?.(this.name, error);
          await this.lose('the work failed to start');
          await this.leases.release(this.name, this.holder).catch(() => undefined);
        },
      );
      return;
    }
    let renewed: boolean | undefined;
    try {
      renewed = await this.leases.renew(this.name, this.holder, this.timing.ttlMs);
    } catch (error) {
      // Not refused, just not answered (e.g. the file is busy): the deadline timer decides.
      this.options.onError?.(this.name, error);
      return;
    }
    if (renewed) this.extendTo(askedAt + this.timing.ttlMs);
    // The deadline may have stopped the work while this renewal was on its way (both were due
    // after a blocked loop): stopping it again would run the work's stop twice.
    else if (this.held) await this.lose('the lease expired or was taken over');
  }

  /**
   * The lease holds until `until`; unless renewed, the work starts stopping a safety margin
   * before that (a renewal interval, at least a third of the lease), leaving time for the batch in
   * progress and for timers that fire late on a busy machine.
   */
  private extendTo(until: number): void {
    this.heldUntil = until;
    this.armDeadline();
  }

  /**
   * Timers run on the monotonic loop clock and may fire a millisecond before the wall clock the
   * lease is kept in says it is time: one that fires early re-arms for the rest instead of
   * returning silently (which once left a holder running after the standby had taken over).
   */
  private armDeadline(): void {
    clearTimeout(this.deadline);
    const margin = Math.max(this.timing.renewEveryMs, Math.ceil(this.timing.ttlMs / 3));
    const stopAt = this.heldUntil - margin;
    this.deadline = setTimeout(
      () => {
        if (!this.held) return;
        if (this.clock.now().getTime() >= stopAt) void this.lose('the lease could not be renewed in time');
        else this.armDeadline();
      },
      Math.max(0, stopAt - this.clock.now().getTime()),
    );
    this.deadline.unref();
  }

  private lose(reason: string): Promise<void> {
    this.losing ??= (async () => {
      clearTimeout(this.deadline);
      this.options.onLost?.(this.name, reason);
      // Lost while the work was still starting (the deadline fired during a start the loop was
      // blocked in): a stop now would find nothing to stop, and the start would then run the work
      // with no lease. Let the start finish, then stop what it started.
      await this.starting;
      try {
        await this.work.stop();
      } catch (error) {
        this.options.onError?.(this.name, error);
      } finally {
        this.held = false;
        this.losing = undefined;
      }
    })();
    return this.losing;
  }
}
