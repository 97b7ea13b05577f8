import type { EventStore } from '#warden/eventstore';
import { type ItemIdentifier, itemVersionAt } from '#warden/ingestion';
import type { RoutingContent } from './review-routing.port.js';

/**
 * What the routing rules read of an item at a version: its data and creator, through ingestion's
 * reader (unsealed); empty once its personal data was erased. Read only when `routingInputs` says a
 * rule looks at the item (reports, rules' enqueues and appeals alike).
 */
export async function routingContentAt(events: EventStore, orgId: string, item: ItemIdentifier, version: number): Promise<RoutingContent> {
  const found = await itemVersionAt(events, orgId, { id: item.id, typeId: item.typeId }, version);
  if (!found || found.erased) return { data: {}, creator: null };
  return { data: found.data ?? {}, creator: found.creator };
}
