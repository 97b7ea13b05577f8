import { CHILD_SAFETY_QUEUE_ID } from '#warden/catalog';
import { eventProjection, orderingKey, type Projection } from '#warden/eventstore';
import type { CommandContext, RecordedEvent, RecordedOf } from '#warden/kernel';
import type { AggregateStore } from '#warden/storage';
import type { ReportSubmitted } from '../domain/report.events.js';
import { reviewJobDecider } from '../domain/review-job.decider.js';
import type { EnqueueRequest, ReviewJobDecided } from '../domain/review-job.events.js';
import { reviewJobStream } from '../domain/review.streams.js';
import type { JobEnqueuer } from './job-enqueuer.js';
import { jobPoliciesIn, type ReviewRouter, typeNameIn } from './review-router.js';

export const REPORT_ROUTING_REACTOR = 'report-routing';

export interface ReportRoutingDeps {
  readonly enqueuer: JobEnqueuer;
  readonly router: ReviewRouter;
  readonly aggregates: AggregateStore;
}

const contextOf = (event: Pick<RecordedEvent, 'id' | 'metadata'>): CommandContext => ({
  orgId: event.metadata.orgId,
  correlationId: event.metadata.correlationId,
  causationId: event.id,
  actor: 'review',
});

/**
 * A user report becomes a review job (or joins the item's open one in that queue): `csam: true`
 * goes to child-safety before any routing rule; otherwise the first routing rule that passes —
 * with the routing inputs REPORT_REASON, REPORTED_POLICY and REPORT_COUNT — picks the queue, and
 * none the default queue. The request id is the report id, so a re-run merges nothing twice.
 */
type RoutedEvent = RecordedOf<ReportSubmitted | ReviewJobDecided>;

const handle = (deps: ReportRoutingDeps, event: RoutedEvent) =>
  event.type === 'ReportSubmitted' ? routeReport(deps, event) : recreateTransformedJob(deps, event);

/** Events about one item (a report of it) or one job (a decision of it) keep their order. */
function itemOrJob(event: RoutedEvent): string {
  if (event.type === 'ReportSubmitted') {
    const { reportedItem } = event.data;
    return `item:${reportedItem.typeId}:${reportedItem.id}`;
  }
  return `job:${event.data.jobId}`;
}

async function routeReport(deps: ReportRoutingDeps, event: RecordedOf<ReportSubmitted>): Promise<void> {
  const orgId = event.metadata.orgId;
  const { data } = event;
  const item = { id: data.reportedItem.id, typeId: data.reportedItem.typeId };
  // One read of the catalog for the whole pass: the routing, the job's policy and type name.
  const catalog = await deps.router.catalog(orgId, 'report', item.typeId);
  const routed = data.csam
    ? { queueId: CHILD_SAFETY_QUEUE_ID, routedBy: null }
    : await deps.router.route(
        orgId,
        catalog,
        { ...item, version: data.reportedItem.version },
        { reason: data.reason, policyId: data.policyId, position: event.position },
      );
  const request: EnqueueRequest = {
    requestId: data.reportId,
    source: 'REPORT',
    at: event.metadata.occurredAt,
    version: data.reportedItem.version,
    report: {
      reportId: data.reportId,
      reporter: data.reporter,
      reportedAt: data.reportedAt,
      hasReason: data.reason !== null && data.reason !== '',
      policyId: data.policyId,
      csam: data.csam,
    },
    action: null,
    // The reported policy as jobs keep it (name and penalty); none once archived.
    policies: data.policyId === null ? [] : jobPoliciesIn(catalog, [data.policyId]),
    routedBy: routed.routedBy,
    fromJobId: null,
  };
  await deps.enqueuer.enqueue(contextOf(event), {
    queueId: routed.queueId,
    item: { ...item, typeName: typeNameIn(catalog, item.typeId) },
    request,
    reasons: data.reason ? { [data.reportId]: data.reason } : {},
    subject: data.subject,
  });
}

/**
 * TRANSFORM_JOB_AND_RECREATE_IN_QUEUE: the decided job is recreated in the target queue (source
 * MRT_JOB) with its requests carried over, so its history is kept. The request id is the
 * decision's id: a re-run finds it in the new job and adds nothing.
 */
async function recreateTransformedJob(deps: ReportRoutingDeps, event: RecordedOf<ReviewJobDecided>): Promise<void> {
  const decided = event.data;
  if (decided.type !== 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' || decided.targetQueueId === null) return;
  const orgId = event.metadata.orgId;
  const state = await deps.aggregates.state(reviewJobStream(orgId, decided.jobId), reviewJobDecider);
  if (state.item === null) return;
  const request: EnqueueRequest = {
    requestId: decided.decisionId,
    source: 'MRT_JOB',
    at: decided.decidedAt,
    version: Math.max(0, ...state.requests.map((r) => r.version)),
    report: null,
    action: null,
    // The carried requests keep their own policies; this one names the moderator's, if any.
    policies: decided.policies,
    routedBy: null,
    fromJobId: decided.jobId,
  };
  // The reasons stay in the stream they were sealed in: each carried request names it.
  const carried = state.requests.map((r) => ({ ...r, fromJobId: r.fromJobId ?? decided.jobId }));
  await deps.enqueuer.enqueue(contextOf(event), { queueId: decided.targetQueueId, item: state.item, request, carried });
}

export function reportRoutingReactor(deps: ReportRoutingDeps): Projection {
  return eventProjection<ReportSubmitted | ReviewJobDecided>({
    name: REPORT_ROUTING_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ReportSubmitted', 'ReviewJobDecided'],
    // The report's reason is a routing input (REPORT_REASON) and travels on, sealed, into the job.
    needsPersonalData: true,
    // Items are routed at once, so their appends share group commits (one at a time, a commit per
    // report capped routing at about 250 reports a second); each item's own events still go in
    // log order.
    keyOf: (event) => orderingKey(event, itemOrJob(event)),
    apply: (event) => handle(deps, event),
  });
}
