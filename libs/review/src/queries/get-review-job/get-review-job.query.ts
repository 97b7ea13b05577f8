import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';
import type { ReviewJobView } from './review-job.view.js';

/**
 * One job as a moderator sees it (enriched: docs/review.md, "The job view"). Scoped by the viewer's organization; a job
 * of another organization, or of the child-safety queue without VIEW_CHILD_SAFETY_DATA, is a 404.
 */
export class GetReviewJobQuery extends Query<ReviewJobView> {
  constructor(
    readonly orgId: string,
    readonly jobId: string,
    readonly viewer: { readonly userId: string; readonly permissions: readonly Permission[] },
  ) {
    super();
  }
}
