import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';
import type { JobState, ReviewJobDoc } from '../../projections/review-jobs.read-model.js';

/**
 * Jobs counted for a count a console page shows, and the deepest the jobs list pages: a page costs
 * what 10,000 jobs do, however long a queue a flood of reports has made (a count of a million
 * PENDING jobs took 56-79 ms, synchronous on SQLite, for every page and every queue listed).
 */
export const COUNTED_JOBS = 10_000;

export interface ReviewJobPage {
  readonly jobs: ReviewJobDoc[];
  /** Matching jobs, counted up to COUNTED_JOBS. */
  readonly total: number;
  /** False when more match than `total` says. */
  readonly totalExact: boolean;
  readonly page: number;
  readonly pageSize: number;
}

/**
 * The managers' list: an organization's jobs, oldest first, optionally of one queue and state and
 * opened before a time (`openedBefore`, checked by the handler: 400 with its pointer).
 */
export class ListReviewJobsQuery extends Query<ReviewJobPage> {
  constructor(
    readonly orgId: string,
    readonly viewer: { readonly permissions: readonly Permission[] },
    readonly filter: { readonly queueId?: string; readonly state?: JobState; readonly openedBefore?: string },
    readonly page: number,
    readonly pageSize: number,
  ) {
    super();
  }
}
