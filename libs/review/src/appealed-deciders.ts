import type { EventStore } from '#warden/eventstore';
import type { ItemIdentifier } from '#warden/ingestion';
import type { ReadStore } from '#warden/readstore';
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
