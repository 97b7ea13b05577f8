import { type EventStore, SEALED_FIELD } from '#warden/eventstore';
import type { JsonObject, RecordedEvent } from '#warden/kernel';
import type { Storage } from '#warden/storage';
import type { ItemHistoryDoc } from './item-history.projection.js';

/**
 * The event an index entry points at, in its current shape: through the application's log
 * (personal fields opened), or, for a viewer without personal data, from the stored form with its
 * sealed fields set to null and then upcast: the plaintext is never opened for them.
 */
export async function readHistoryEvent(events: EventStore, storage: Storage, doc: ItemHistoryDoc, personalData: boolean): Promise<RecordedEvent | undefined> {
  const from = { fromRevision: doc.revision, maxCount: 1 };
  if (personalData) return (await events.readStream(doc.stream, from))[0];
  const [stored] = await storage.storedEvents.readStream(doc.stream, from);
  return stored ? (await storage.upcasters.upcastAll([withoutPersonalFields(stored)]))[0] : undefined;
}

/** A stream's events (the first `maxCount`), personal fields null, upcast. */
export async function readStoredStream(storage: Storage, stream: string, maxCount?: number): Promise<RecordedEvent[]> {
  const stored = await storage.storedEvents.readStream(stream, maxCount === undefined ? undefined : { fromRevision: 0, maxCount });
  return storage.upcasters.upcastAll(stored.map(withoutPersonalFields));
}

/** The stored event with its sealed personal fields null, as an erased subject's events read. */
export function withoutPersonalFields(event: RecordedEvent): RecordedEvent {
  const envelope = event.data[SEALED_FIELD] as { fields?: unknown } | undefined;
  if (!envelope || !Array.isArray(envelope.fields)) return event;
  const data: JsonObject = { ...event.data };
  delete data[SEALED_FIELD];
  for (const field of envelope.fields) if (typeof field === 'string') data[field] = null;
  return { ...event, data, metadata: { ...event.metadata, personalDataRedacted: true } };
}
