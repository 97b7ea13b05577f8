import { deterministicId, streamName } from '#warden/kernel';

/**
 * Job `generation` of an item in a queue. Derived, so that "one open job per item and queue" needs
 * no index: the next request for the item and queue goes to the first generation that is open or
 * not yet created (JobEnqueuer).
 */
export const reviewJobId = (orgId: string, item: { typeId: string; id: string }, queueId: string, generation: number) =>
  deterministicId('review-job', orgId, item.typeId, item.id, queueId, String(generation));

/** An appeal's job: one per appeal, never merged with the item's other jobs in the queue. */
export const appealJobId = (orgId: string, appealId: string) => deterministicId('review-job', orgId, 'appeal', appealId);

export const reviewJobStream = (orgId: string, jobId: string) => streamName('review_job', orgId, jobId);
