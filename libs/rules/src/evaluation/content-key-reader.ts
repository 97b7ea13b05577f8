import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '#warden/eventstore';
import { type ItemIdentifier, type ItemVersion, itemVersionsBetween } from '#warden/ingestion';
import { EVENT_STORE } from '#warden/storage';
import { contentKey, contentSince, itemContentDigest, type ItemContent, type VersionContent } from '../domain/item-content.js';

/** Earlier versions read per page while looking for where the item's current content began. */
const CONTENT_PAGE = 32;

/** An earlier version as far as its content goes; erased ones are unreadable (no digest). */
function versionContent(v: ItemVersion, digest: string): VersionContent {
  // A version fetched from the customer (docs/partial-items.md) is no submission: the run of
  // identical submitted content goes on through it, so a re-sent partial item acts once.
  if (v.source === 'partial-fetch') return { version: v.version, digest };
  if (v.erased || v.data === null) return { version: v.version, digest: null };
  return { version: v.version, digest: itemContentDigest({ data: v.data, creator: v.creator }) };
}

/**
 * An item version's content key (domain/item-content.ts: the digest of its content and the
 * version where that content began), read from the item's earlier versions through ingestion's
 * reader, a page at a time until the run of identical content ends (nearly always within the
 * first page: one read). What the ids of the version's actions and daily-cap counts derive from.
 */
@Injectable()
export class ContentKeyReader {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  /** The key, read once and only when first asked for (only a published action or a daily cap needs it). */
  lazy(orgId: string, item: ItemIdentifier & ItemContent, version: number): () => Promise<string> {
    let key: Promise<string> | undefined;
    return () => (key ??= this.read(orgId, item, version));
  }

  async read(orgId: string, item: ItemIdentifier & ItemContent, version: number): Promise<string> {
    const digest = itemContentDigest(item);
    let since = version;
    while (since > 0) {
      const from = Math.max(0, since - CONTENT_PAGE);
      const earlier = await itemVersionsBetween(this.events, orgId, item, from, since);
      const found = contentSince(
        since,
        digest,
        earlier.map((v) => versionContent(v, digest)),
      );
      const runGoesOn = found === from && from > 0;
      since = found;
      if (!runGoesOn) break;
    }
    return contentKey(digest, since);
  }
}
