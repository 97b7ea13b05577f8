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
export const itemContentDigest = (content: ItemContent): string => canonicalJsonDigest({ data: content.data, creator: content.creator });

/** An earlier version of the item, as far as its content goes (null: unreadable, e.g. erased). */
export interface VersionContent {
  readonly version: number;
  readonly digest: string | null;
}

/**
 * The version where the item's current content began: walking back from `version`, the first of
 * the unbroken run of versions with this digest. A client's retry of the latest content continues
 * the run, so it keeps the run's start (and acts once); content that comes back after an edit
 * (A, B, A) starts a new run, so it acts again. `earlier` holds versions below `version`, in any
 * order; the walk stops at the first gap or other digest.
 */
export function contentSince(version: number, digest: string, earlier: readonly VersionContent[]): number {
  const byVersion = new Map(earlier.map((v) => [v.version, v.digest] as const));
  let since = version;
  while (since > 0 && byVersion.get(since - 1) === digest) since -= 1;
  return since;
}

/**
 * What the ids of an item's actions derive from: its content's digest and the version where that
 * content began (see contentSince).
 */
export const contentKey = (digest: string, since: number): string => `${digest}@${since}`;
