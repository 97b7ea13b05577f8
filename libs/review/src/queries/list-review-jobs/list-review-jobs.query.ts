import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';
import type { JobState, ReviewJobDoc } from '../../projections/review-jobs.read-model.js';

export interface ReviewJobPage {
  readonly jobs: ReviewJobDoc[];
  readonly total: number;
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
