import type { QueryBus } from '@nestjs/cqrs';
import { CHILD_SAFETY_QUEUE_ID, GetLiveEntitiesQuery } from '#warden/catalog';
import type { Projection } from '#warden/eventstore';
import type { RecordedEvent } from '#warden/kernel';
import type { ReviewEnqueueRequested } from '#warden/rules';
import { defaultQueueOf, effectiveQueues } from '../domain/effective-queues.js';
import type { EnqueueRequest } from '../domain/review-job.events.js';
import type { JobEnqueuer } from './job-enqueuer.js';

export const REVIEW_ENQUEUE_REACTOR = 'review-enqueue';

/**
 * Items bound for review become jobs: a rule's ENQUEUE_TO_MRT / ENQUEUE_TO_CHILD_SAFETY action
 * (ReviewEnqueueRequested, published by the rules engine). The request id is the id the engine
 * derived for the publication, so a re-run merges nothing twice.
 */
export function reviewEnqueueReactor(deps: { enqueuer: JobEnqueuer; queries: QueryBus }): Projection {
  const enqueueRuleRequest = async (event: RecordedEvent) => {
    const orgId = event.metadata.orgId;
    const data = event.data as unknown as ReviewEnqueueRequested['data'];
    const queues = effectiveQueues(await deps.queries.execute(new GetLiveEntitiesQuery(orgId, 'queue')));
    const queueId = data.queueId === CHILD_SAFETY_QUEUE_ID ? CHILD_SAFETY_QUEUE_ID : defaultQueueOf(queues).id;
    const request: EnqueueRequest = {
      requestId: data.jobId,
      source: data.source,
      at: event.metadata.occurredAt,
      version: data.version,
      report: null,
      action: { id: data.actionId, rules: data.rules },
      policies: data.policies,
      routedBy: null,
      fromJobId: null,
    };
    await deps.enqueuer.enqueue(
      { orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: 'review' },
      { queueId, item: data.item, request },
    );
  };
  return {
    name: REVIEW_ENQUEUE_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ReviewEnqueueRequested'],
    needsPersonalData: false,
    apply: (event) => enqueueRuleRequest(event),
  };
}
