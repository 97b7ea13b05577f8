import { EventStoreDecorator, type EventStore, type ReadStreamOptions } from '#warden/eventstore';
import type { NewEvent, RecordedEvent } from '#warden/kernel';

/**
 * The event store as it is, counting what goes through it: the events stream reads hand back and
 * the appends made. What a command costs is measured here, at the store port, not in time.
 */
export class CountingEventStore extends EventStoreDecorator {
  eventsRead = 0;
  appends = 0;

  constructor(inner: EventStore) {
    super(inner);
  }

  override async readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    const events = await super.readStream(streamName, options);
    this.eventsRead += events.length;
    return events;
  }

  protected onAppend(events: readonly NewEvent[]): readonly NewEvent[] {
    this.appends += 1;
    return events;
  }

  protected onRead(events: readonly RecordedEvent[]): RecordedEvent[] {
    return [...events];
  }

  /** Counts from zero again. */
  reset(): void {
    this.eventsRead = 0;
    this.appends = 0;
  }
}
