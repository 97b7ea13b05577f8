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
     * `partial-fetch`: the whole item as the organization's partial-items endpoint returned it
     * (docs/partial-items.md); recorded as data for what asked for it (an evaluation of a partial
     * item, the review console), never evaluated or counted as a submission on its own.
     */
    source: 'items' | 'content' | 'report' | 'topic' | 'partial-fetch';
  }
>;

export const ITEM_SUBMITTED = 'ItemSubmitted';
export const itemKey = (orgId: string, typeId: string, itemId: string) => `${orgId}:${typeId}:${itemId}`;
