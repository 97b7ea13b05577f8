import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '#warden/eventstore';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import { type MergedReport, mergedReports } from './domain/decision-effects.js';
import { type JobEventsLoader, type JobRequests, jobReasonsOf, jobRequestsFollowing } from './domain/job-requests.js';
import { reviewJobDecider, type ReviewJobState } from './domain/review-job.decider.js';
import type { ReportReasons, ReviewJobEvent } from './domain/review-job.events.js';
import { reviewJobStream } from './domain/review.streams.js';

/**
 * The histories of other jobs read for a job's requests and reasons (those a move named or carried
 * them from), by job id. Those jobs are closed (a move decided them), so their histories are final:
 * kept for the next read of the same job (a decision's next try), and shared by the reads of one
 * view, each is read once.
 */
export type OtherJobs = Map<string, Promise<readonly ReviewJobEvent[]>>;

/** A job's requests as read from its history so far: `read` events, so that a later read goes on from there. */
export interface JobHistoryRead extends JobRequests {
  readonly read: number;
  readonly others: OtherJobs;
}

/**
 * Every report merged into a job, with what its reporter wrote. A job's state keeps its request
 * ids only (a merge must not cost more on a mass-reported item): the requests and reasons are read
 * from the job's history, and those of reports carried from the job it was recreated from from
 * that job's, under their reporters' keys. One piece for the decision's callbacks, the job view and
 * a recreated job.
 */
@Injectable()
export class JobReports {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /**
   * The job's requests, read on from `since` (what an earlier call returned): a decision decided
   * again after a merge landed meanwhile reads the merges since, not the whole job again, so that a
   * mass-reported item under a flood of reports can still be decided.
   */
  async history(orgId: string, jobId: string, since?: JobHistoryRead): Promise<JobHistoryRead> {
    const others: OtherJobs = since?.others ?? new Map();
    const events = await this.events.readStream(reviewJobStream(orgId, jobId), { fromRevision: since?.read ?? 0 });
    const more = await this.fromEvents(orgId, events as unknown as ReviewJobEvent[], undefined, others);
    if (!since) return { read: events.length, ...more, others };
    return { read: since.read + events.length, requests: [...since.requests, ...more.requests], reasons: { ...since.reasons, ...more.reasons }, others };
  }

  /** The requests of a job's events (the first `count`), following the jobs a move named (`carriedFrom`) into their own streams. */
  fromEvents(orgId: string, events: readonly ReviewJobEvent[], count?: number, others: OtherJobs = new Map()): Promise<JobRequests> {
    return jobRequestsFollowing(events, this.loader(orgId, others), count);
  }

  /** The merged reports of the job as `state` holds them (its first `requestCount` requests of `history`). */
  async of(orgId: string, state: ReviewJobState, history: JobHistoryRead): Promise<MergedReport[]> {
    return this.reports(orgId, { requests: history.requests.slice(0, state.requestCount), reasons: history.reasons }, history.others);
  }

  /** The merged reports of requests already read, with the reasons of those carried from other jobs (read once with `others`). */
  async reports(orgId: string, job: JobRequests, others: OtherJobs = new Map()): Promise<MergedReport[]> {
    const load = this.loader(orgId, others);
    const fromJobIds = [...new Set(job.requests.flatMap((r) => (r.report && r.fromJobId ? [r.fromJobId] : [])))];
    const carried: { [jobId: string]: ReportReasons } = Object.fromEntries(
      await Promise.all(fromJobIds.map(async (jobId) => [jobId, jobReasonsOf(await load(jobId))] as const)),
    );
    return mergedReports(job, carried);
  }

  /** Another job's whole history, of this organization: read once into `others`. */
  private loader(orgId: string, others: OtherJobs): JobEventsLoader {
    return (jobId) => {
      let events = others.get(jobId);
      if (!events) {
        events = this.aggregates.load(reviewJobStream(orgId, jobId), reviewJobDecider).then((loaded) => loaded.events);
        // A failed read is not kept: the next try reads again.
        events.catch(() => others.delete(jobId));
        others.set(jobId, events);
      }
      return events;
    };
  }
}
