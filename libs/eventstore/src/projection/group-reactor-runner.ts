import type { RecordedEvent } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import type { EventStore, GroupSubscribeOptions, Subscription } from '../event-store.port.js';
import type { Projection } from './projection.js';
import { applyEvents } from './unit-of-work.js';

export interface GroupReactorRunnerOptions {
  /** The subscription dropped (it is re-established) or a batch failed (it is retried). */
  readonly onError?: (reactor: string, error: unknown) => void;
  /** Wait before re-subscribing after a drop. */
  readonly retryDelayMs?: number;
}

/** The consumer group a reactor's workers share. */
export const reactorGroup = (reactor: string) => `warden-${reactor}`;

/**
 * Runs a reactor as one member of a consumer group (competing consumers): every worker process
 * gets a share of its events and the server keeps the checkpoint. Reactors are idempotent (their
 * effects carry ids derived from the causing event), so the group's redeliveries are harmless.
 */
export class GroupReactorRunner {
  private subscription: Subscription | undefined;
  private stopped = true;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    readonly projection: Projection,
    private readonly events: EventStore & Required<Pick<EventStore, 'subscribeToGroup'>>,
    private readonly store: ReadStore,
    private readonly options: GroupReactorRunnerOptions = {},
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    // A group created now continues where the reactor's own checkpoint left off (a deployment
    // that ran it as a catch-up subscription before), not at the start of the log.
    const startAfter = await this.store.checkpoint(this.projection.name);
    this.subscribe(startAfter);
  }

  async stop(): Promise<void> {
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

  private async handle(events: readonly RecordedEvent[]): Promise<void> {
    const { uow } = await applyEvents(this.projection, events, this.store);
    const writes = uow.writes();
    if (writes.length > 0) await this.store.commit(writes);
  }
}
