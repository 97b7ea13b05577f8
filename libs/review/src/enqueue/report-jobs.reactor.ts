import { eventProjection, orderingKey, type Projection } from '#warden/eventstore';
import type { CommandContext, RecordedEvent, RecordedOf } from '#warden/kernel';
import type { ReportRouted } from '#warden/rules/contracts';
import type { AggregateStore } from '#warden/storage';
import { JOB_REQUESTS_COPIED } from '../domain/job-requests.js';
import type { JobReports } from '../job-reports.js';
import { reviewJobDecider, type ReviewJobState } from '../domain/review-job.decider.js';
import type { CarriedJob, EnqueueRequest, ReviewJobDecided } from '../domain/review-job.events.js';
import { reviewJobStream } from '../domain/review.streams.js';
import type { JobEnqueuer } from './job-enqueuer.js';

export const REPORT_JOBS_REACTOR = 'report-jobs';

/**
 * Before, the review module routed reports itself, in a reactor named `report-routing` that also
 * recreated transformed jobs; the rules engine's routing reactor kept that name (and its
 * checkpoint), and this one took over the rest (docs/operations.md, "Upgrading: reports routed by
 * the rules engine").
 */
const ROUTED_BY_REVIEW_BEFORE = 'report-routing';

export interface ReportJobsDeps {
  readonly enqueuer: JobEnqueuer;
  readonly aggregates: AggregateStore;
  readonly jobReports: JobReports;
}

const contextOf = (event: Pick<RecordedEvent, 'id' | 'metadata'>): CommandContext => ({
  orgId: event.metadata.orgId,
  correlationId: event.metadata.correlationId,
  causationId: event.id,
  actor: 'review',
});

type JobEvent = RecordedOf<ReportRouted | ReviewJobDecided>;

const handle = (deps: ReportJobsDeps, event: JobEvent) =>
  event.type === 'ReportRouted' ? enqueueRoutedReport(deps, event) : recreateTransformedJob(deps, event);

/** Events about one item (a report of it) or one job (a decision of it) keep their order. */
function itemOrJob(event: JobEvent): string {
  if (event.type === 'ReportRouted') {
    const { item } = event.data;
    return `item:${item.typeId}:${item.id}`;
  }
  return `job:${event.data.jobId}`;
}

/**
 * A user report becomes a review job in the queue the rules engine routed it to (ReportRouted),
 * or joins the item's open job there. Everything the job keeps comes with the route: no catalog
 * is read here. The request id is the report id, so a re-run merges nothing twice.
 */
async function enqueueRoutedReport(deps: ReportJobsDeps, event: RecordedOf<ReportRouted>): Promise<void> {
  const { data } = event;
  const request: EnqueueRequest = {
    requestId: data.reportId,
    source: 'REPORT',
    at: data.report.recordedAt,
    version: data.version,
    report: {
      reportId: data.reportId,
      reporter: data.report.reporter,
      reportedAt: data.report.reportedAt,
      hasReason: data.report.hasReason,
      policyId: data.report.policyId,
      csam: data.report.csam,
    },
    action: null,
    policies: data.policies,
    routedBy: data.routedBy,
    fromJobId: null,
  };
  await deps.enqueuer.enqueue(contextOf(event), {
    queueId: data.queueId,
    item: data.item,
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
async function recreateTransformedJob(deps: ReportJobsDeps, event: RecordedOf<ReviewJobDecided>): Promise<void> {
  const decided = event.data;
  if (decided.type !== 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' || decided.targetQueueId === null) return;
  const orgId = event.metadata.orgId;
  const stream = reviewJobStream(orgId, decided.jobId);
  // The job's state (cached or snapshotted) says how large it is: a large one is named from it,
  // without reading its history; only a small one's history is read, to copy its requests.
  const state = await deps.aggregates.state(stream, reviewJobDecider);
  if (state.item === null) return;
  const request: EnqueueRequest = {
    requestId: decided.decisionId,
    source: 'MRT_JOB',
    at: decided.decidedAt,
    version: state.itemVersion,
    report: null,
    action: null,
    // The carried requests keep their own policies; this one names the moderator's, if any.
    policies: decided.policies,
    routedBy: null,
    fromJobId: decided.jobId,
  };
  // The reasons stay in the stream they were sealed in: each carried request names it. A job with
  // many requests is named instead of copied (CarriedJob): one event must stay within an append.
  const target = { queueId: decided.targetQueueId, item: state.item, request };
  if (state.requestCount > JOB_REQUESTS_COPIED) {
    await deps.enqueuer.enqueue(contextOf(event), { ...target, carriedFrom: namedJob(decided.jobId, state) });
    return;
  }
  const { requests } = await deps.jobReports.fromEvents(orgId, (await deps.aggregates.load(stream, reviewJobDecider)).events);
  await deps.enqueuer.enqueue(contextOf(event), { ...target, carried: requests.map((r) => ({ ...r, fromJobId: r.fromJobId ?? decided.jobId })) });
}

/** What a new job keeps of a large moved job it names, from that job's state (what carriedJob counts from its requests). */
function namedJob(jobId: string, state: ReviewJobState): CarriedJob {
  return {
    jobId,
    requests: state.requestCount,
    reports: state.reportCount,
    csamReports: state.csamReports,
    sources: [...state.sources],
    policies: [...state.policies],
    version: state.itemVersion,
    ruleDetected: state.ruleDetected,
  };
}

export function reportJobsReactor(deps: ReportJobsDeps): Projection {
  return eventProjection<ReportRouted | ReviewJobDecided>({
    name: REPORT_JOBS_REACTOR,
    reactor: true,
    succeeds: [ROUTED_BY_REVIEW_BEFORE],
    collections: [],
    eventTypes: ['ReportRouted', 'ReviewJobDecided'],
    // The report's reason travels on, sealed, into the job.
    needsPersonalData: true,
    // Items at once, so their appends share group commits; each item's own events in log order.
    keyOf: (event) => orderingKey(event, itemOrJob(event)),
    apply: (event) => handle(deps, event),
  });
}
