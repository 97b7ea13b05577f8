import type { NewEvent, RecordedEvent, UpcasterRegistry } from '#warden/kernel';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  GroupSubscribeOptions,
  ReadAllOptions,
  ReadStreamOptions,
  SubscribeOptions,
  Subscription,
} from '../event-store.port.js';

/**
 * Schema versions on the way in and out of the log, as a decorator over the application's event
 * store, so that no read path can forget them: appends are stamped with each type's current
 * version, and every event read (streams, the whole log, subscriptions) is upcast to it.
 */
export class UpcastingEventStore implements EventStore {
  /** Present when the inner store has consumer groups (KurrentDB). */
  readonly subscribeToGroup?: (options: GroupSubscribeOptions) => Subscription;

  constructor(
    private readonly inner: EventStore,
    private readonly upcasters: UpcasterRegistry,
  ) {
    const group = inner.subscribeToGroup?.bind(inner);
    if (group) {
      this.subscribeToGroup = (options) =>
        group({ ...options, onEvents: (events) => options.onEvents(this.upcasters.upcastAll(events)) });
    }
  }

  append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.inner.append(streamName, events.map((e) => this.stamp(e)), expected);
  }

  async readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.upcasters.upcastAll(await this.inner.readStream(streamName, options));
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.upcasters.upcastAll(await this.inner.readAll(options));
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return this.inner.subscribeToAll({
      ...options,
      onEvents: (events, through) => options.onEvents(this.upcasters.upcastAll(events), through),
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

  private stamp(event: NewEvent): NewEvent {
    const version = this.upcasters.currentVersion(event.type);
    return event.metadata.schemaVersion === version ? event : { ...event, metadata: { ...event.metadata, schemaVersion: version } };
  }
}
