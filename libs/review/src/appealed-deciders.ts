import type { EventStore } from '#warden/eventstore';
import type { ItemIdentifier } from '#warden/ingestion';
import type { ReadStore } from '#warden/readstore';
import type { ReviewJobEvent } from './domain/review-job.events.js';
import { reviewJobStream } from './domain/review.streams.js';
import { recordedDecision } from './job-decision.js';
import { REVIEW_JOBS, type ReviewJobDoc } from './projections/review-jobs.read-model.js';

/** Closed jobs of one item read to find the appealed decisions (an item has few). */
const MAX_JOBS_READ = 200;

/**
 * The moderators whose decisions on the item took one of the appealed actions: the item's closed
 * jobs, newest first (the read model finds them; which ones is not an exclusive decision), with the
 * actions each decision took. Those are the read model's; only a document written before it kept
 * them sends the read to the job's stream. Reading every decided job's stream made each appeal of
 * an often-appealed item cost up to MAX_JOBS_READ stream reads, its appeal jobs' decisions among them.
 */
export async function appealedDeciders(
  readStore: ReadStore,
  events: EventStore,
  orgId: string,
  item: ItemIdentifier,
  actionsTaken: readonly string[],
): Promise<string[]> {
  const closed = await readStore.find<ReviewJobDoc>(
    REVIEW_JOBS,
    { orgId, itemTypeId: item.typeId, itemId: item.id, state: 'CLOSED' },
    // The newest first: the appealed decision is among the item's latest jobs, not its first ones.
    { sort: [{ field: 'openedAt', direction: 'desc' }], limit: MAX_JOBS_READ },
  );
  const deciders = new Set<string>();
  for (const job of closed) {
    const actorId = job.decision?.actorId;
    if (actorId == null || deciders.has(actorId)) continue;
    const actionIds = job.decision!.actionIds ?? (await recordedDecision(events, orgId, job.jobId))?.actionIds ?? [];
    if (actionIds.some((a) => actionsTaken.includes(a))) deciders.add(actorId);
  }
  return [...deciders];
}

/**
 * Whether `moderatorId` decided on an appeal job's item, with one of the appealed actions, since
 * the job opened: those who had before are its `excludedModerators`, and one who removed the item
 * from a report's job after the appeal came in would otherwise review their own judgement. The
 * appealed actions are read from the job's first event; the decisions as appealedDeciders finds
 * them. Asked at each claim of an appeal job and at its decision (the claim may come first).
 */
export async function tookAppealedAction(
  readStore: ReadStore,
  events: EventStore,
  orgId: string,
  jobId: string,
  item: ItemIdentifier,
  moderatorId: string,
): Promise<boolean> {
  const [opened] = (await events.readStream(reviewJobStream(orgId, jobId), { maxCount: 1 })) as unknown as ReviewJobEvent[];
  const actionsTaken = opened?.type === 'ReviewJobOpened' ? (opened.data.request.appeal?.actionsTaken ?? []) : [];
  if (actionsTaken.length === 0) return false;
  return (await appealedDeciders(readStore, events, orgId, item, actionsTaken)).includes(moderatorId);
}
