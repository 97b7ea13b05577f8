import type { EventStore } from '#warden/eventstore';
import type { ItemIdentifier, ItemSubmitted } from './domain/item.events.js';
import { itemStream } from './domain/item.streams.js';

/** An item's newest recorded version: its revision on the item's stream and its creator. */
export interface LatestSubmission {
  readonly version: number;
  readonly creator: ItemIdentifier | null;
}

/**
 * The item's newest `ItemSubmitted`, read from its own stream (one event per version: short);
 * null when Warden never stored the item.
 */
export async function latestSubmission(events: Pick<EventStore, 'readStream'>, orgId: string, item: ItemIdentifier): Promise<LatestSubmission | null> {
  const recorded = await events.readStream(itemStream(orgId, item.typeId, item.id));
  const last = recorded.findLast((e) => e.type === 'ItemSubmitted');
  if (!last) return null;
  const { creator } = last.data as unknown as ItemSubmitted['data'];
  return { version: last.revision, creator: creator ? { id: creator.id, typeId: creator.typeId } : null };
}
