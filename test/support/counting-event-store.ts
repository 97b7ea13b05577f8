import { EventStoreDecorator, type EventStore, type ReadAllOptions, type ReadStreamOptions } from '#warden/eventstore';
import type { NewEvent, RecordedEvent } from '#warden/kernel';

/**
 * The event store as it is, counting what goes through it: the events stream reads hand back and
 * the appends made. What a command costs is measured here, at the store port, not in time.
 */
export class CountingEventStore extends EventStoreDecorator {
  eventsRead = 0;
  /** Stream reads made, whatever they handed back (a read of a new stream hands back nothing and still costs a query). */
  streamReads = 0;
  appends = 0;
  /** Events handed back by reads of the whole log (readAll), apart from stream reads. */
  logEventsRead = 0;
  /** The log positions those reads handed back, in the order read. */
  logPositionsRead: number[] = [];

  constructor(inner: EventStore) {
    super(inner);
  }

  override async readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    const events = await super.readStream(streamName, options);
    this.streamReads += 1;
    this.eventsRead += events.length;
    return events;
  }

  override async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    const events = await super.readAll(options);
    this.logEventsRead += events.length;
    for (const e of events) this.logPositionsRead.push(e.position);
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
    this.streamReads = 0;
    this.appends = 0;
    this.logEventsRead = 0;
    this.logPositionsRead = [];
  }
}
