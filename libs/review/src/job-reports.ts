import { Injectable } from '@nestjs/common';
import { AggregateStore } from '#warden/storage';
import { type MergedReport, mergedReports } from './domain/decision-effects.js';
import { reviewJobDecider, type ReviewJobState } from './domain/review-job.decider.js';
import type { ReportReasons } from './domain/review-job.events.js';
import { reviewJobStream } from './domain/review.streams.js';

/**
 * Every report merged into a job, with what its reporter wrote: a job's own reasons are in its
 * state; those of reports carried from the job it was recreated from stay in that job's stream,
 * under their reporters' keys, and are read from there. One piece for the decision's callbacks and
 * the job view.
 */
@Injectable()
export class JobReports {
  constructor(private readonly aggregates: AggregateStore) {}

  async of(orgId: string, state: ReviewJobState): Promise<MergedReport[]> {
    const fromJobIds = [...new Set(state.requests.flatMap((r) => (r.report && r.fromJobId ? [r.fromJobId] : [])))];
    const carried: { [jobId: string]: ReportReasons } = Object.fromEntries(
      await Promise.all(
        fromJobIds.map(async (jobId) => [jobId, (await this.aggregates.state(reviewJobStream(orgId, jobId), reviewJobDecider)).reasons] as const),
      ),
    );
    return mergedReports(state, carried);
  }
}
