import type { NewEvent, RecordedEvent } from '#warden/kernel';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  GroupSubscribeOptions,
  ReadAllOptions,
  ReadStreamOptions,
  SubscribeOptions,
  Subscription,
} from './event-store.port.js';

/** What a reader asked for, so a decorator does no work the reader will not look at. */
export interface ReadScope {
  readonly eventTypes?: readonly string[];
  readonly personalData?: boolean;
}

/**
 * An EventStore that changes events on the way in and out of another one, on every path: appends,
 * stream and log reads, catch-up subscriptions and consumer groups (when the inner store has them).
 * The personal-data codec and the upcasters are such decorators.
 */
export abstract class EventStoreDecorator implements EventStore {
  /** Present when the inner store has consumer groups (KurrentDB). */
  readonly subscribeToGroup?: (options: GroupSubscribeOptions) => Subscription;
  /** Present with subscribeToGroup: a group's checkpoint, which no decoration changes. */
  readonly groupCheckpoint?: (group: string) => Promise<number | undefined>;

  constructor(protected readonly inner: EventStore) {
    const group = inner.subscribeToGroup?.bind(inner);
    if (group) {
      this.subscribeToGroup = (options) => group({ ...options, onEvents: async (events) => options.onEvents(await this.onRead(events, options)) });
    }
    const checkpoint = inner.groupCheckpoint?.bind(inner);
    if (checkpoint) this.groupCheckpoint = checkpoint;
  }

  /** The events as the inner store should store them. */
  protected abstract onAppend(events: readonly NewEvent[]): Promise<readonly NewEvent[]> | readonly NewEvent[];

  /** The events as the reader should see them. */
  protected abstract onRead(events: readonly RecordedEvent[], scope: ReadScope): Promise<RecordedEvent[]> | RecordedEvent[];

  async append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.inner.append(streamName, await this.onAppend(events), expected);
  }

  async readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.onRead(await this.inner.readStream(streamName, options), {});
  }

  /** No event is read, so none is changed. */
  lastRevision(streamName: string): Promise<number | undefined> {
    return this.inner.lastRevision(streamName);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.onRead(await this.inner.readAll(options), options);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return this.inner.subscribeToAll({
      ...options,
      onEvents: async (events, through) => options.onEvents(await this.onRead(events, options), through),
    });
  }

  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
