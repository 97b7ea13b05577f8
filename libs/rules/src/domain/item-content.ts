import { canonicalJsonDigest } from '#warden/kernel';

/**
 * What an item's actions depend on: its data and its creator (named in every action callback;
 * on the legacy endpoint it may come from outside the data). The version number, the endpoint,
 * `typeVersion` and `typeSchemaVariant` are not content: a client re-sending the same item is
 * sending the same content, whatever version it is recorded as.
 */
export interface ItemContent {
  readonly data: { readonly [field: string]: unknown };
  readonly creator: { readonly id: string; readonly typeId: string } | null;
}

/** The digest of an item's content (canonical JSON, so key order and formatting do not count). */
export const itemContentDigest = (content: ItemContent): string =>
  canonicalJsonDigest({ data: content.data, creator: content.creator });
