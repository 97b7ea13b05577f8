import { eventProjection } from '#warden/eventstore';
import type { ReadDocument } from '#warden/readstore';
import { fifoKey, priorityKey, severityOf } from '../domain/job-order.js';
import { carriedJob } from '../domain/job-requests.js';
import { type CarriedJob, type EnqueueRequest, REVIEW_JOB_EVENT_TYPES, type ReviewJobEvent } from '../domain/review-job.events.js';
import { REVIEW_JOBS, type ReviewJobDoc, reviewJobDocId } from './review-jobs.read-model.js';

export const REVIEW_JOBS_PROJECTION = 'review-jobs';

// A child-safety report changes nothing a queue shows.
const JOB_EVENTS = REVIEW_JOB_EVENT_TYPES.filter((type) => type !== 'ChildSafetyReportRecorded');

/** The requests' counts (summed as a moved job's are: carriedJob) and the appeal an appeal job's request names. */
function withRequests(doc: ReviewJobDoc, requests: readonly EnqueueRequest[]): ReviewJobDoc {
  let appealId = doc.appealId ?? null;
  const excludedModerators = [...(doc.excludedModerators ?? [])];
  for (const r of requests) {
    if (!r.appeal) continue;
    appealId = r.appeal.appealId;
    for (const m of r.appeal.excludedModerators) if (!excludedModerators.includes(m)) excludedModerators.push(m);
  }
  const version = requests.reduce((v, r) => Math.max(v, r.version), 0);
  return withCarriedJob({ ...doc, appealId, excludedModerators }, carriedJob(doc.jobId, requests, version));
}

/** The counts of requests summed up (CarriedJob): a moved job's named instead of copied, as if its requests had been listed, or those listed. */
function withCarriedJob(doc: ReviewJobDoc, carried: CarriedJob | undefined): ReviewJobDoc {
  if (!carried) return doc;
  const sources = [...doc.sources];
  for (const source of carried.sources) if (!sources.includes(source)) sources.push(source);
  const policyIds = [...doc.policyIds];
  for (const p of carried.policies) if (!policyIds.includes(p.id)) policyIds.push(p.id);
  const reportCount = doc.reportCount + carried.reports;
  const severity = Math.max(doc.severity, severityOf(carried.policies.map((p) => p.penalty)));
  return {
    ...doc,
    sources,
    policyIds,
    reportCount,
    requestCount: doc.requestCount + carried.requests,
    severity,
    version: Math.max(doc.version, carried.version),
    priorityKey: priorityKey(reportCount, severity, doc.openedAt, doc.jobId),
  };
}

/**
 * Review jobs for queues, claim candidates and the managers' list. The read model only proposes
 * candidates: every claim is decided on the job's stream. Idempotent by the job stream's revision
 * (and the store's per-document positions).
 */
export const reviewJobsProjection = eventProjection<ReviewJobEvent>({
  name: REVIEW_JOBS_PROJECTION,
  collections: [REVIEW_JOBS],
  eventTypes: [...JOB_EVENTS],
  // Counts and keys only: the report reasons are not read.
  needsPersonalData: false,
  indexes: [
    { collection: REVIEW_JOBS, fields: ['orgId', 'queueId', 'state', 'fifoKey'] },
    { collection: REVIEW_JOBS, fields: ['orgId', 'queueId', 'state', 'priorityKey'] },
    { collection: REVIEW_JOBS, fields: ['orgId', 'queueId', 'state', 'lockExpiresAt'] },
    // Narrow (most jobs are assigned to nobody): SQLite counts a queue's jobs in a state over it. A
    // moderator's assigned jobs are read in the queue's order over the order's index instead,
    // walking the queue's assigned jobs only.
    { collection: REVIEW_JOBS, fields: ['orgId', 'queueId', 'state', 'assignedTo'] },
    // An item's (and its creator's) earlier jobs, newest first, in the job view: without the sort field
    // SQLite scans the whole collection instead. Also the item's jobs in a state (an item has few).
    { collection: REVIEW_JOBS, fields: ['orgId', 'itemTypeId', 'itemId', 'openedAt'] },
    { collection: REVIEW_JOBS, fields: ['orgId', 'state', 'fifoKey'] },
    // The managers' list of one queue, or of every queue, in any state.
    { collection: REVIEW_JOBS, fields: ['orgId', 'queueId', 'fifoKey'] },
    { collection: REVIEW_JOBS, fields: ['orgId', 'fifoKey'] },
  ],
  async apply(recorded, ctx) {
    const orgId = recorded.metadata.orgId;
    const event = recorded;
    const id = reviewJobDocId(orgId, (event.data as { jobId: string }).jobId);
    const previous = await ctx.get<ReviewJobDoc>(REVIEW_JOBS, id);
    if (previous && previous.revision >= recorded.revision) return;
    const doc = next(previous, event, orgId);
    if (doc) ctx.put(REVIEW_JOBS, id, { ...doc, revision: recorded.revision } as unknown as ReadDocument);
  },
});

function next(previous: ReviewJobDoc | undefined, event: ReviewJobEvent, orgId: string): ReviewJobDoc | undefined {
  if (event.type === 'ReviewJobOpened') {
    const d = event.data;
    const empty: ReviewJobDoc = {
      orgId,
      jobId: d.jobId,
      queueId: d.queueId,
      generation: d.generation,
      item: d.item,
      itemTypeId: d.item.typeId,
      itemId: d.item.id,
      version: 0,
      state: 'PENDING',
      source: d.request.source,
      sources: [],
      reportCount: 0,
      requestCount: 0,
      severity: 0,
      policyIds: [],
      openedAt: d.openedAt,
      fifoKey: fifoKey(d.openedAt, d.jobId),
      priorityKey: '',
      lockedBy: null,
      lockExpiresAt: null,
      assignedTo: null,
      skips: {},
      firstClaimedAt: null,
      decision: null,
      revision: -1,
    };
    return withRequests(withCarriedJob(empty, d.carriedFrom), [...d.carried, d.request]);
  }
  if (!previous) return undefined;
  switch (event.type) {
    case 'ReviewJobMerged':
      return withRequests(withCarriedJob(previous, event.data.carriedFrom), [...(event.data.carried ?? []), event.data.request]);
    case 'ReviewJobClaimed':
      return {
        ...previous,
        state: 'LOCKED',
        lockedBy: event.data.moderatorId,
        lockExpiresAt: event.data.expiresAt,
        firstClaimedAt: previous.firstClaimedAt ?? event.data.claimedAt,
      };
    case 'ReviewJobLockRenewed':
      return { ...previous, lockExpiresAt: event.data.expiresAt };
    case 'ReviewJobReleased':
      return { ...previous, state: 'PENDING', lockedBy: null, lockExpiresAt: null, assignedTo: null };
    case 'ReviewJobSkipped': {
      // As the decider: the assignee's skip gives the assignment up.
      const assignedTo = previous.assignedTo === event.data.moderatorId ? null : previous.assignedTo;
      return {
        ...previous,
        state: assignedTo ? 'ASSIGNED' : 'PENDING',
        lockedBy: null,
        lockExpiresAt: null,
        assignedTo,
        skips: { ...previous.skips, [event.data.moderatorId]: event.data.skipUntil },
      };
    }
    case 'ReviewJobAssigned':
      return { ...previous, state: 'ASSIGNED', lockedBy: null, lockExpiresAt: null, assignedTo: event.data.moderatorId };
    case 'ReviewJobDecided':
      return {
        ...previous,
        state: 'CLOSED',
        lockedBy: null,
        lockExpiresAt: null,
        decision: {
          decisionId: event.data.decisionId,
          type: event.data.type,
          actorId: event.data.actor?.userId ?? null,
          decidedAt: event.data.decidedAt,
          closeReason: event.data.closeReason,
          actionIds: [...event.data.actionIds],
        },
      };
    default:
      return previous;
  }
}
