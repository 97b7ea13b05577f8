import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { jobNotFound } from '../../domain/review-job.errors.js';
import { REVIEW_JOBS_PROJECTION } from '../../projections/review-jobs.projection.js';
import { REVIEW_JOBS, type ReviewJobDoc, reviewJobDocId } from '../../projections/review-jobs.read-model.js';
import { ReviewQueues } from '../../review-queues.js';
import { GetReviewJobQuery } from './get-review-job.query.js';
import type { ReviewJobView } from './review-job.view.js';

@QueryHandler(GetReviewJobQuery)
export class GetReviewJobHandler implements IQueryHandler<GetReviewJobQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly queues: ReviewQueues,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: GetReviewJobQuery): Promise<ReviewJobView> {
    // The viewer may have just claimed or decided it: show the job as of their own write.
    await this.projections.catchUp(REVIEW_JOBS_PROJECTION);
    const doc = await this.readStore.get<ReviewJobDoc>(REVIEW_JOBS, reviewJobDocId(query.orgId, query.jobId));
    if (!doc) throw jobNotFound(query.jobId);
    const visible = await this.queues.visible(query.orgId, query.viewer.permissions);
    if (!visible.some((q) => q.id === doc.queueId)) throw jobNotFound(query.jobId);
    return {
      jobId: doc.jobId,
      queueId: doc.queueId,
      state: doc.state,
      item: { ...doc.item, version: doc.version },
      source: doc.source,
      sources: doc.sources,
      reportCount: doc.reportCount,
      openedAt: doc.openedAt,
      lock: doc.lockedBy && doc.lockExpiresAt ? { moderatorId: doc.lockedBy, expiresAt: doc.lockExpiresAt } : null,
      assignedTo: doc.assignedTo,
      decision: doc.decision,
    };
  }
}
