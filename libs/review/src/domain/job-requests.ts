import { severityOf } from './job-order.js';
import type { CarriedJob, EnqueueRequest, EnqueueSource, JobPolicy, ReportReasons, ReviewJobEvent } from './review-job.events.js';

/** A job's requests and its own reports' reasons, as its history holds them. */
export interface JobRequests {
  /** Every request merged into the job, in order (the carried ones of a recreated job first). */
  readonly requests: EnqueueRequest[];
  /** The reasons of the job's own reports, by report id (unsealed when read with the reporters' keys). */
  readonly reasons: ReportReasons;
}

/** A request a rule found (a statement of reasons says the decision was detected by a rule). */
export const isRuleDetected = (r: EnqueueRequest): boolean => r.source === 'RULE_EXECUTION' && (r.action?.rules.length ?? 0) > 0;

/** The events that merge requests into a job. */
type RequestEvent = Extract<ReviewJobEvent, { type: 'ReviewJobOpened' | 'ReviewJobMerged' }>;
export const mergesRequests = (event: ReviewJobEvent): event is RequestEvent => event.type === 'ReviewJobOpened' || event.type === 'ReviewJobMerged';

/** The reports an event merges, and of those the `csam`-flagged: its own request's, those it carries, and those of the job it names. */
export function reportsMergedBy(event: ReviewJobEvent): { reports: number; csam: number } {
  if (!mergesRequests(event)) return { reports: 0, csam: 0 };
  const listed = [...(event.data.carried ?? []), event.data.request];
  return {
    reports: listed.filter((r) => r.report).length + (event.data.carriedFrom?.reports ?? 0),
    csam: listed.filter((r) => r.report?.csam).length + (event.data.carriedFrom?.csamReports ?? 0),
  };
}

/**
 * Of requests in merge order, those from the newest `limit` reports on (those and every request
 * after them), and before them the newest `csam` reports flagged `csam` (what a child-safety
 * report must name however many reports came after), still in merge order.
 */
export function fromNewestReports(requests: readonly EnqueueRequest[], limit: number, csam = 0): EnqueueRequest[] {
  let reports = 0;
  let cut = 0;
  for (let i = requests.length - 1; i >= 0; i--) {
    if (requests[i]!.report && ++reports === limit) {
      cut = i;
      break;
    }
  }
  const flagged: EnqueueRequest[] = [];
  const within = requests.slice(cut).filter((r) => r.report?.csam).length;
  for (let i = cut - 1; i >= 0 && flagged.length + within < csam; i--) if (requests[i]!.report?.csam) flagged.unshift(requests[i]!);
  return [...flagged, ...requests.slice(cut)];
}

/** A job's whole history, as read from its stream: for following the jobs a move named (`carriedFrom`). */
export type JobEventsLoader = (jobId: string) => Promise<readonly ReviewJobEvent[]>;

/**
 * The requests of a job from its events, the first `count` of them (the state a decision was made
 * on: `ReviewJobState.requestCount`; requests are only ever appended, so a history read later
 * starts with them). The state keeps their ids only, so that a merge does not grow with the job
 * (docs/architecture.md, "Streams and what a command costs"); what lists the requests — a
 * decision's callbacks, the job view, a recreated job — reads them here, once.
 *
 * In each event: the requests of a job it names (`carriedFrom`, from `carriedJobs`, each taking
 * that job as its `fromJobId` when it has none), then those it carries, then its request. A job
 * named but not in `carriedJobs` is an error: `jobRequestsFollowing` reads them.
 */
export function jobRequestsOf(
  events: readonly ReviewJobEvent[],
  count = Number.POSITIVE_INFINITY,
  carriedJobs: ReadonlyMap<string, readonly EnqueueRequest[]> = new Map(),
): JobRequests {
  const requests: EnqueueRequest[] = [];
  const reasons: ReportReasons = {};
  for (const event of events) {
    if (requests.length >= count) break;
    if (!mergesRequests(event)) continue;
    const named = event.data.carriedFrom;
    if (named) {
      const carried = carriedJobs.get(named.jobId);
      if (!carried) throw new Error(`the requests of job ${named.jobId}, which job ${event.data.jobId} carries, were not read`);
      for (const r of carried) requests.push(r.fromJobId ? r : { ...r, fromJobId: named.jobId });
    }
    requests.push(...(event.data.carried ?? []), event.data.request);
    Object.assign(reasons, event.data.reasons);
  }
  return { requests: requests.length > count ? requests.slice(0, count) : requests, reasons };
}

/** As `jobRequestsOf`, reading the requests of the jobs the events name (and of those these name) with `load`. */
export async function jobRequestsFollowing(events: readonly ReviewJobEvent[], load: JobEventsLoader, count = Number.POSITIVE_INFINITY): Promise<JobRequests> {
  const named = new Set<string>();
  for (const event of events) {
    if (mergesRequests(event) && event.data.carriedFrom) named.add(event.data.carriedFrom.jobId);
  }
  const carriedJobs = new Map<string, readonly EnqueueRequest[]>();
  for (const jobId of named) carriedJobs.set(jobId, (await jobRequestsFollowing(await load(jobId), load)).requests);
  return jobRequestsOf(events, count, carriedJobs);
}

/** The reasons of a job's own reports, by report id: what a report carried from it to another job is read with. */
export function jobReasonsOf(events: readonly ReviewJobEvent[]): ReportReasons {
  const reasons: ReportReasons = {};
  for (const event of events) if (mergesRequests(event)) Object.assign(reasons, event.data.reasons);
  return reasons;
}

/**
 * A move (MRT_JOB) copies the moved job's requests into the new job's event up to this many; a job
 * with more is named instead (CarriedJob): past a few thousand reports one event with them all
 * would pass what one append to KurrentDB may hold (1 MiB by default).
 */
export const JOB_REQUESTS_COPIED = 500;

/** What a new job keeps of a moved job it names instead of copying its requests (every one of them, `requests`). */
export function carriedJob(jobId: string, requests: readonly EnqueueRequest[], version: number): CarriedJob {
  const sources: EnqueueSource[] = [];
  const policies = new Map<string, JobPolicy>();
  for (const r of requests) {
    if (!sources.includes(r.source)) sources.push(r.source);
    // A policy's penalty may have changed while the job collected requests: the most severe counts, as the queues count copied requests.
    for (const p of r.policies) {
      const known = policies.get(p.id);
      if (!known || severityOf([p.penalty]) > severityOf([known.penalty])) policies.set(p.id, p);
    }
  }
  return {
    jobId,
    requests: requests.length,
    reports: requests.filter((r) => r.report).length,
    csamReports: requests.filter((r) => r.report?.csam).length,
    sources,
    policies: [...policies.values()],
    version,
    ruleDetected: requests.some(isRuleDetected),
  };
}
