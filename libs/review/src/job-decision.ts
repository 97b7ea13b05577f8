import { type EventStore, newestEvents } from '#warden/eventstore';
import { recordedAs } from '#warden/kernel';
import type { ReviewJobDecided } from './domain/review-job.events.js';
import { reviewJobStream } from './domain/review.streams.js';

/**
 * A job's decision as its stream recorded it, or undefined while it has none. Read backwards from
 * the job's end and no further than its last merge (a decision closes the job: nothing is merged
 * after it), so a mass-reported job's decision costs what a quiet one's does.
 */
export async function recordedDecision(events: Pick<EventStore, 'readStream'>, orgId: string, jobId: string): Promise<ReviewJobDecided['data'] | undefined> {
  const [decided] = await newestEvents(events, reviewJobStream(orgId, jobId), {
    count: 1,
    wanted: (e) => e.type === 'ReviewJobDecided',
    stop: (e) => e.type === 'ReviewJobOpened' || e.type === 'ReviewJobMerged',
  });
  return decided ? recordedAs<ReviewJobDecided>(decided, 'ReviewJobDecided')?.data : undefined;
}
