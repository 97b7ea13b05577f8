import { CHILD_SAFETY_QUEUE_ID } from '#warden/catalog';
import { eventProjection, orderingKey, type Projection } from '#warden/eventstore';
import type { RecordedOf } from '#warden/kernel';
import type { EnqueueRequest, ReviewEnqueueRequested } from '../domain/review-job.events.js';
import type { JobEnqueuer } from './job-enqueuer.js';
import type { ReviewRouter } from './review-router.js';

export const REVIEW_ENQUEUE_REACTOR = 'review-enqueue';

/**
 * Items bound for review become jobs: a rule's ENQUEUE_TO_MRT / ENQUEUE_TO_CHILD_SAFETY action
 * (ReviewEnqueueRequested, published by the rules engine, and by enforcement for an executed action or a strike threshold). ENQUEUE_TO_MRT goes through the routing
 * rules like a report, without the report inputs (conditions on them are unknown: they do not
 * pass); ENQUEUE_TO_CHILD_SAFETY goes to child-safety. The request id is the id the engine derived
 * for the publication, so a re-run merges nothing twice.
 */
export function reviewEnqueueReactor(deps: { enqueuer: JobEnqueuer; router: ReviewRouter }): Projection {
  const enqueueRuleRequest = async (event: RecordedOf<ReviewEnqueueRequested>) => {
    const orgId = event.metadata.orgId;
    const { data } = event;
    // One read of the catalog for the routing; the job's policies and type name come with the request.
    const { queueId, routedBy } =
      data.queueId === CHILD_SAFETY_QUEUE_ID
        ? { queueId: CHILD_SAFETY_QUEUE_ID, routedBy: null }
        : await deps.router.route(orgId, await deps.router.catalog(orgId, 'report', data.item.typeId), { ...data.item, version: data.version });
    const request: EnqueueRequest = {
      requestId: data.jobId,
      source: data.source,
      at: event.metadata.occurredAt,
      version: data.version,
      report: null,
      action: { id: data.actionId, rules: data.rules },
      policies: data.policies,
      routedBy,
      fromJobId: null,
    };
    await deps.enqueuer.enqueue(
      { orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: 'review' },
      { queueId, item: data.item, request },
    );
  };
  return eventProjection<ReviewEnqueueRequested>({
    name: REVIEW_ENQUEUE_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ReviewEnqueueRequested'],
    // Routing reads the item's data from its own stream, not from this event.
    needsPersonalData: false,
    // Items at once (their appends share group commits); one item's requests in log order.
    keyOf: (event) => {
      const { item } = event.data;
      return orderingKey(event, `item:${item.typeId}:${item.id}`);
    },
    apply: (event) => enqueueRuleRequest(event),
  });
}
