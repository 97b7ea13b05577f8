import type { DomainEvent } from '#warden/kernel';

export interface ItemIdentifier {
  id: string;
  typeId: string;
}

/**
 * A submitted item (or a new version of it). `data` is personal data: sealed in the log under
 * the key of `subject` (the creator, or the item itself when it is a user or has no creator).
 */
export type ItemSubmitted = DomainEvent<
  'ItemSubmitted',
  {
    itemId: string;
    typeId: string;
    typeVersion: string | null;
    typeSchemaVariant: 'original' | 'partial';
    data: { [field: string]: unknown };
    creator: ItemIdentifier | null;
    subject: string;
    /**
     * Which endpoint accepted it; the legacy one skips image hashing. `report`: the reported item
     * of a user report (POST /api/v1/report), hashed and evaluated like `items`. `topic`: an
     * ITEM_SUBMISSION_EVENT from the inbound topic (docs/inbound-topic.md), likewise.
     */
    source: 'items' | 'content' | 'report' | 'topic';
  }
>;

export const ITEM_SUBMITTED = 'ItemSubmitted';
export const itemKey = (orgId: string, typeId: string, itemId: string) => `${orgId}:${typeId}:${itemId}`;
