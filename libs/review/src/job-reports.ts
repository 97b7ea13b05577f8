import { Injectable } from '@nestjs/common';
import { AggregateStore } from '#warden/storage';
import { type MergedReport, mergedReports } from './domain/decision-effects.js';
import { type JobRequests, jobRequestsOf } from './domain/job-requests.js';
import { reviewJobDecider, type ReviewJobState } from './domain/review-job.decider.js';
import type { ReportReasons } from './domain/review-job.events.js';
import { reviewJobStream } from './domain/review.streams.js';

/**
 * Every report merged into a job, with what its reporter wrote. A job's state keeps its request
 * ids only (a merge must not cost more on a mass-reported item): the requests and reasons are read
 * from the job's history, and those of reports carried from the job it was recreated from from
 * that job's, under their reporters' keys. One piece for the decision's callbacks, the job view and
 * a recreated job.
 */
@Injectable()
export class JobReports {
  constructor(private readonly aggregates: AggregateStore) {}

  /** The requests of the job as `state` holds them (its first `requestCount`), from the job's history. */
  async requests(orgId: string, jobId: string, state: ReviewJobState): Promise<JobRequests> {
    const { events } = await this.aggregates.load(reviewJobStream(orgId, jobId), reviewJobDecider);
    return jobRequestsOf(events, state.requestCount);
  }

  /** The merged reports of the job as `state` holds them. */
  async of(orgId: string, jobId: string, state: ReviewJobState): Promise<MergedReport[]> {
    return this.reports(orgId, await this.requests(orgId, jobId, state));
  }

  /** The merged reports of requests already read, with the reasons of those carried from other jobs. */
  async reports(orgId: string, job: JobRequests): Promise<MergedReport[]> {
    const fromJobIds = [...new Set(job.requests.flatMap((r) => (r.report && r.fromJobId ? [r.fromJobId] : [])))];
    const carried: { [jobId: string]: ReportReasons } = Object.fromEntries(
      await Promise.all(
        fromJobIds.map(async (jobId) => {
          const { events } = await this.aggregates.load(reviewJobStream(orgId, jobId), reviewJobDecider);
          return [jobId, jobRequestsOf(events).reasons] as const;
        }),
      ),
    );
    return mergedReports(job, carried);
  }
}
