import { eventProjection } from '#warden/eventstore';
import type { ItemSubmitted } from '#warden/ingestion/contracts';

export const CREATOR_SUBMISSIONS = 'ingestion_creator_submissions';
/** Enough history for CREATOR_SUBMISSION_COUNT windows; older submissions are dropped. */
const KEEP = 1000;

export type CreatorSubmissionsDoc = { orgId: string; creator: { id: string; typeId: string }; times: string[] };

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
    // A version fetched from the customer (docs/partial-items.md) is no new submission by its creator.
    if (!data.creator || data.source === 'partial-fetch') return;
    const id = creatorSubmissionsDocId(event.metadata.orgId, data.creator);
    const doc = (await ctx.get<CreatorSubmissionsDoc>(CREATOR_SUBMISSIONS, id)) ?? {
      orgId: event.metadata.orgId,
      creator: data.creator,
      times: [],
    };
    ctx.put(CREATOR_SUBMISSIONS, id, { ...doc, times: [...doc.times, event.metadata.occurredAt].slice(-KEEP) });
  },
});

/** How many of the creator's submissions fall within the window ending at `now`. */
export function countWithin(doc: CreatorSubmissionsDoc | undefined, windowSeconds: number, now: Date): number {
  if (!doc) return 0;
  const since = now.getTime() - windowSeconds * 1000;
  let n = 0;
  for (let i = doc.times.length - 1; i >= 0 && Date.parse(doc.times[i]!) >= since; i--) n++;
  return n;
}
