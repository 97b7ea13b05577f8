import type { EnqueueRequest, ReportReasons, ReviewJobEvent } from './review-job.events.js';

/** A job's requests and its own reports' reasons, as its history holds them. */
export interface JobRequests {
  /** Every request merged into the job, in order (the carried ones of a recreated job first). */
  readonly requests: EnqueueRequest[];
  /** The reasons of the job's own reports, by report id (unsealed when read with the reporters' keys). */
  readonly reasons: ReportReasons;
}

/**
 * The requests of a job from its events, the first `count` of them (the state a decision was made
 * on: `ReviewJobState.requestCount`; requests are only ever appended, so a history read later
 * starts with them). The state keeps their ids only, so that a merge does not grow with the job
 * (docs/architecture.md, "Streams and what a command costs"); what lists the requests — a
 * decision's callbacks, the job view, a recreated job — reads them here, once.
 */
export function jobRequestsOf(events: readonly ReviewJobEvent[], count = Number.POSITIVE_INFINITY): JobRequests {
  const requests: EnqueueRequest[] = [];
  const reasons: ReportReasons = {};
  for (const event of events) {
    if (requests.length >= count) break;
    if (event.type !== 'ReviewJobOpened' && event.type !== 'ReviewJobMerged') continue;
    requests.push(...(event.data.carried ?? []), event.data.request);
    Object.assign(reasons, event.data.reasons);
  }
  return { requests: requests.length > count ? requests.slice(0, count) : requests, reasons };
}
