import { eventProjection } from '#warden/eventstore';
import type { ItemSubmitted } from '#warden/ingestion/contracts';

export const CREATOR_SUBMISSIONS = 'ingestion_creator_submissions';
/** Enough history for CREATOR_SUBMISSION_COUNT windows; older submissions are dropped. */
const KEEP = 1000;
/** Between two times in `at`. */
const SEPARATOR = ',';

export type CreatorSubmissionsDoc = {
  orgId: string;
  creator: { id: string; typeId: string };
  /**
   * The newest KEEP submission times, oldest first: epoch milliseconds in base 36, comma-separated.
   * One string rather than an array of ISO times: a flooding creator's document is read, copied
   * and written for each of their submissions, and an array of a thousand strings cost about
   * 100 µs a submission on the event loop, this string 3 (docs/benchmarks.md, "seventh session").
   */
  at?: string;
  /** How many times `at` holds. */
  count?: number;
  /** The earlier form (ISO times, newest last): read as it is, rewritten on the creator's next submission. */
  times?: string[];
};

export const creatorSubmissionsDocId = (orgId: string, creator: { id: string; typeId: string }) => `${orgId}:${creator.typeId}:${creator.id}`;

/**
 * Submission times per creator, newest last: the rules engine's own view of ingestion's
 * ItemSubmitted events, for the CREATOR_SUBMISSION_COUNT signal. Its name and collection are those
 * it had under ingestion, so existing read models and checkpoints carry on.
 */
export const creatorSubmissionsProjection = eventProjection<ItemSubmitted>({
  name: 'creator-submissions',
  collections: [CREATOR_SUBMISSIONS],
  eventTypes: ['ItemSubmitted'],
  // Only the creator (an opaque id) is read: the sealed item data stays sealed.
  needsPersonalData: false,
  async apply(event, ctx) {
    const { data } = event;
    // A version fetched from the customer (docs/partial-items.md), or recorded by someone's report of
    // the item, is no new submission by its creator: twenty reports must not make a creator prolific.
    if (!data.creator || data.source === 'partial-fetch' || data.source === 'report') return;
    const ms = Date.parse(event.metadata.occurredAt);
    // Every event carries its time; one without a readable time could never fall in a window.
    if (!Number.isFinite(ms)) return;
    const id = creatorSubmissionsDocId(event.metadata.orgId, data.creator);
    const doc = await ctx.get<CreatorSubmissionsDoc>(CREATOR_SUBMISSIONS, id);
    const { at, count } = appended(doc ? compact(doc) : { at: '', count: 0 }, ms.toString(36));
    ctx.put(CREATOR_SUBMISSIONS, id, {
      orgId: event.metadata.orgId,
      creator: { id: data.creator.id, typeId: data.creator.typeId },
      at,
      count,
    } satisfies CreatorSubmissionsDoc);
  },
});

/** `time` added last, the oldest dropped beyond KEEP. */
function appended(times: { at: string; count: number }, time: string): { at: string; count: number } {
  if (times.count === 0) return { at: time, count: 1 };
  let at = times.at + SEPARATOR + time;
  let count = times.count + 1;
  while (count > KEEP) {
    at = at.slice(at.indexOf(SEPARATOR) + 1);
    count -= 1;
  }
  return { at, count };
}

/** The document's times in the compact form, whichever form it was stored in. */
function compact(doc: CreatorSubmissionsDoc): { at: string; count: number } {
  if (doc.at !== undefined) return { at: doc.at, count: doc.count ?? 0 };
  const times = (doc.times ?? []).map((t) => Date.parse(t)).filter((ms) => Number.isFinite(ms));
  return { at: times.map((ms) => ms.toString(36)).join(SEPARATOR), count: times.length };
}

/** How many of the creator's submissions fall within the window ending at `now`. */
export function countWithin(doc: CreatorSubmissionsDoc | undefined, windowSeconds: number, now: Date): number {
  if (!doc) return 0;
  const since = now.getTime() - windowSeconds * 1000;
  // From the newest back, reading only as far as the window reaches.
  const { at } = compact(doc);
  let n = 0;
  let end = at.length;
  while (end > 0) {
    const start = at.lastIndexOf(SEPARATOR, end - 1) + 1;
    if (parseInt(at.slice(start, end), 36) < since) break;
    n += 1;
    end = start - 1;
  }
  return n;
}
