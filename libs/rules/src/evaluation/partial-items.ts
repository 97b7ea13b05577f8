import type { ItemIdentifier } from '#warden/ingestion';
import type { CommandContext } from '#warden/kernel';

/** Why Warden asks the customer for a whole item (sent in the request: docs/partial-items.md). */
export type PartialFetchReason = 'missing-fields' | 'related-item' | 'console';

/** A whole item as the customer's endpoint returned it, recorded as a version of the item. */
export interface FetchedItem extends ItemIdentifier {
  readonly data: { readonly [field: string]: unknown };
  readonly typeVersion: string | null;
  readonly typeSchemaVariant: 'original' | 'partial';
  /** The version it was recorded as (source `partial-fetch`); of the first fetch when served from the cache. */
  readonly version: number;
}

export type PartialFetchOutcome = { readonly ok: true; readonly item: FetchedItem; readonly cached: boolean } | { readonly ok: false; readonly reason: string };

/**
 * Where the rules engine gets the whole of an item it holds only part of (docs/partial-items.md):
 * the partial-items module implements it with the organization's endpoint, its cache, concurrency
 * limit and circuit breaker (docs/partial-items.md). The engine never imports that module; the
 * composition root passes it as an extension (rules-extension.ts). Never throws: a failure is an
 * outcome with its reason, which the evaluation's unknown conditions carry.
 */
export interface PartialItemSource {
  fetchItems(context: CommandContext, items: readonly ItemIdentifier[], reason: PartialFetchReason): Promise<PartialFetchOutcome[]>;
}

export const PARTIAL_ITEMS = Symbol('PartialItems');
