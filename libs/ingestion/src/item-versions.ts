import { type EventStore, newestEvents } from '#warden/eventstore';
import { type RecordedEvent, recordedAs } from '#warden/kernel';
import type { ItemIdentifier, ItemSubmitted } from './domain/item.events.js';
import { itemStream } from './domain/item.streams.js';

type Submitted = ItemSubmitted['data'];

/**
 * One recorded version of an item: its ItemSubmitted decoded, personal data opened (the store's
 * codec opens it on read). The one place that knows how an item's stream is laid out, so that
 * review, the rules engine and the legacy content endpoint read "the item at version n" here
 * instead of decoding the stream themselves (docs/architecture.md, "Streams and what a command costs":
 * `item`, one ItemSubmitted per version, the revision is the version).
 */
export interface ItemVersion {
  /** The stream's revision, from 0. */
  readonly version: number;
  /** The ItemSubmitted's id: what a reaction to this version (its evaluation) is caused by. */
  readonly eventId: string;
  readonly correlationId: string;
  readonly orgId: string;
  readonly itemId: string;
  readonly typeId: string;
  /** Null once the version's personal data was erased (`erased`). */
  readonly data: Submitted['data'] | null;
  readonly creator: ItemIdentifier | null;
  readonly subject: string;
  readonly typeVersion: string | null;
  readonly typeSchemaVariant: Submitted['typeSchemaVariant'];
  readonly source: Submitted['source'];
  /** Its personal data was erased (a GDPR deletion): `data` is unreadable. */
  readonly erased: boolean;
}

/**
 * A recorded ItemSubmitted as an item version; null for any other event. For readers of the item
 * stream and for reactors that receive ItemSubmitted events from the log.
 */
export function itemVersionOf(event: RecordedEvent): ItemVersion | null {
  const recorded = recordedAs<ItemSubmitted>(event, 'ItemSubmitted');
  if (!recorded) return null;
  const submitted = recorded.data;
  const erased = event.metadata.personalDataRedacted === true;
  const data = submitted.data;
  return {
    version: event.revision,
    eventId: event.id,
    correlationId: event.metadata.correlationId,
    orgId: event.metadata.orgId,
    itemId: submitted.itemId,
    typeId: submitted.typeId,
    data: typeof data === 'object' && data !== null ? data : null,
    creator: submitted.creator ? { id: submitted.creator.id, typeId: submitted.creator.typeId } : null,
    subject: submitted.subject,
    typeVersion: submitted.typeVersion ?? null,
    typeSchemaVariant: submitted.typeSchemaVariant ?? 'original',
    source: submitted.source,
    erased,
  };
}

type StreamReader = Pick<EventStore, 'readStream'>;

/** The item at `version`; null when the item has no such version. One read of one event. */
export async function itemVersionAt(events: StreamReader, orgId: string, item: ItemIdentifier, version: number): Promise<ItemVersion | null> {
  const [event] = await events.readStream(itemStream(orgId, item.typeId, item.id), { fromRevision: version, maxCount: 1 });
  return event && event.revision === version ? itemVersionOf(event) : null;
}

/**
 * The item's newest version: its stream read backwards from its end, one event at a time (each may
 * be a whole item of up to 1 MiB), so that an item edited thousands of times costs one read. Null
 * when Warden never stored the item.
 */
export async function latestItemVersion(events: StreamReader, orgId: string, item: ItemIdentifier): Promise<ItemVersion | null> {
  const [last] = await newestEvents(events, itemStream(orgId, item.typeId, item.id), { count: 1, wanted: (e) => e.type === 'ItemSubmitted', pageSize: 1 });
  return last ? itemVersionOf(last) : null;
}

/** The item's versions from `from` up to (not including) `to`, in order: one read. */
export async function itemVersionsBetween(events: StreamReader, orgId: string, item: ItemIdentifier, from: number, to: number): Promise<ItemVersion[]> {
  if (to <= from) return [];
  const recorded = await events.readStream(itemStream(orgId, item.typeId, item.id), { fromRevision: from, maxCount: to - from });
  return recorded.map(itemVersionOf).filter((v): v is ItemVersion => v !== null);
}

/** An item's newest recorded version: its revision on the item's stream and its creator. */
export interface LatestSubmission {
  readonly version: number;
  readonly creator: ItemIdentifier | null;
}

/** The item's newest version and creator (one event read); null when Warden never stored the item. */
export async function latestSubmission(events: StreamReader, orgId: string, item: ItemIdentifier): Promise<LatestSubmission | null> {
  const latest = await latestItemVersion(events, orgId, item);
  return latest && { version: latest.version, creator: latest.creator };
}
