import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '#warden/eventstore';
import { type ItemIdentifier, type ItemVersion, itemVersionsBetween } from '#warden/ingestion';
import { EVENT_STORE } from '#warden/storage';
import { evaluationStream } from '../domain/evaluation.streams.js';
import { contentKey, contentSince, itemContentDigest, type ItemContent, type VersionContent } from '../domain/item-content.js';
import { readItemEvaluated } from './recorded-evaluation.js';

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

/** The run whose evaluations record the key (EvaluationRecorder): the live one, which evaluates every submitted version. */
export const CHAINED_RUN = 'LIVE';

/** A content key as the previous version's evaluation recorded it: its digest and the version its content began. */
const RECORDED_KEY = /^(.+)@(\d+)$/;

/**
 * An item version's content key (domain/item-content.ts: the digest of its content and the
 * version where that content began). What the ids of the version's actions and daily-cap counts
 * derive from. The live run records the key of every submitted version after the first (and of
 * any whose evaluation published an action) on its ItemEvaluated (`content`), so the key
 * of version n is the previous version's, carried on when the content is the same, or begins at n
 * when it is not: one read of one event, however many times the item was re-sent (a mass-reported
 * item records a version per report). Without that record (evaluations recorded before it was
 * kept, a version fetched from the customer in between, an erased one), the earlier
 * versions are read through ingestion's reader a page at a time until the run of identical
 * content ends, as before.
 */
@Injectable()
export class ContentKeyReader {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  /** The key, read once when first asked for. */
  lazy(orgId: string, item: ItemIdentifier & ItemContent, version: number): () => Promise<string> {
    let key: Promise<string> | undefined;
    return () => (key ??= this.read(orgId, item, version));
  }

  /** The key of `version`, whatever the run asking (a retroaction's, a backtest's): the live run records them. */
  async read(orgId: string, item: ItemIdentifier & ItemContent, version: number): Promise<string> {
    const digest = itemContentDigest(item);
    if (version === 0) return contentKey(digest, 0);
    const previous = await this.recordedKey(evaluationStream(orgId, item.typeId, item.id, version - 1, CHAINED_RUN));
    if (previous) return contentKey(digest, previous.digest === digest ? previous.since : version);
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

  /** The content key a version's evaluation recorded, if it recorded one that is still readable. */
  private async recordedKey(stream: string): Promise<{ digest: string; since: number } | null> {
    const content = (await readItemEvaluated(this.events, stream))?.content;
    const parsed = typeof content === 'string' ? RECORDED_KEY.exec(content) : null;
    return parsed ? { digest: parsed[1]!, since: Number(parsed[2]) } : null;
  }
}
