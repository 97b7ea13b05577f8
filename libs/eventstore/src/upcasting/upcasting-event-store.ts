import type { NewEvent, RecordedEvent, UpcasterRegistry } from '#warden/kernel';
import { EventStoreDecorator } from '../event-store-decorator.js';
import type { EventStore } from '../event-store.port.js';

/**
 * Schema versions on the way in and out of the log, as a decorator over the application's event
 * store, so that no read path can forget them: appends are stamped with each type's current
 * version, and every event read (streams, the whole log, subscriptions, groups) is upcast to it.
 */
export class UpcastingEventStore extends EventStoreDecorator {
  constructor(
    inner: EventStore,
    private readonly upcasters: UpcasterRegistry,
  ) {
    super(inner);
  }

  protected onAppend(events: readonly NewEvent[]): NewEvent[] {
    return events.map((e) => {
      const version = this.upcasters.currentVersion(e.type);
      return e.metadata.schemaVersion === version ? e : { ...e, metadata: { ...e.metadata, schemaVersion: version } };
    });
  }

  protected onRead(events: readonly RecordedEvent[]): RecordedEvent[] {
    return this.upcasters.upcastAll(events);
  }
}
