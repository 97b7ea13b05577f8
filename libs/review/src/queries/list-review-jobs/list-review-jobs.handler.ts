import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CHILD_SAFETY_QUEUE_ID } from '#warden/catalog';
import { parseIsoInstant } from '#warden/catalog/contracts';
import { invalidField } from '#warden/kernel';
import { countUpTo, type Filter, type ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { REVIEW_JOBS_PROJECTION } from '../../projections/review-jobs.projection.js';
import { REVIEW_JOBS, type ReviewJobDoc } from '../../projections/review-jobs.read-model.js';
import { ReviewQueues } from '../../review-queues.js';
import { COUNTED_JOBS, ListReviewJobsQuery, type ReviewJobPage } from './list-review-jobs.query.js';

@QueryHandler(ListReviewJobsQuery)
export class ListReviewJobsHandler implements IQueryHandler<ListReviewJobsQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly queues: ReviewQueues,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: ListReviewJobsQuery): Promise<ReviewJobPage> {
    const mayViewChildSafety = query.viewer.permissions.includes('VIEW_CHILD_SAFETY_DATA');
    if (query.filter.queueId !== undefined) {
      await this.queues.require(query.orgId, query.filter.queueId, query.viewer.permissions);
    } else if (!mayViewChildSafety) {
      // Equality filters cannot leave one queue out of a page: such a viewer lists one queue at a time.
      throw invalidField('/queueId', 'is required without VIEW_CHILD_SAFETY_DATA (the child-safety queue is not listed to you)');
    }
    const openedBefore = query.filter.openedBefore === undefined ? undefined : parseIsoInstant(query.filter.openedBefore);
    if (query.filter.openedBefore !== undefined && !openedBefore) {
      throw invalidField('/openedBefore', 'expected an ISO 8601 datetime with a time part (2026-11-26T09:00:00Z)');
    }
    await this.projections.catchUp(REVIEW_JOBS_PROJECTION);
    const filter: Filter = {
      orgId: query.orgId,
      ...(query.filter.queueId !== undefined ? { queueId: query.filter.queueId } : {}),
      ...(query.filter.state !== undefined ? { state: query.filter.state } : {}),
      // The fifo key starts with the opening time in the read model's own form (toISOString), so the
      // bound is written the same way: the range then runs on the index the list is sorted by.
      ...(openedBefore ? { fifoKey: { lt: openedBefore.toISOString() } } : {}),
    };
    const skip = (query.page - 1) * query.pageSize;
    if (skip > COUNTED_JOBS) {
      throw invalidField('/page', `pages reach the first ${COUNTED_JOBS} jobs of a filter; for older ones narrow it (openedBefore, state)`);
    }
    const [jobs, count] = await Promise.all([
      this.readStore.find<ReviewJobDoc>(REVIEW_JOBS, filter, { sort: [{ field: 'fifoKey', direction: 'asc' }], limit: query.pageSize, skip }),
      countUpTo(this.readStore, REVIEW_JOBS, filter, COUNTED_JOBS),
    ]);
    return {
      jobs: jobs.filter((j) => mayViewChildSafety || j.queueId !== CHILD_SAFETY_QUEUE_ID),
      total: count.total,
      totalExact: count.exact,
      page: query.page,
      pageSize: query.pageSize,
    };
  }
}
