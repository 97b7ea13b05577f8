import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { type ConfigManagement, GetConfigManagementQuery, type QueueDefinition } from '#warden/catalog';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { countUpTo, type ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { REVIEW_JOBS_PROJECTION } from '../../projections/review-jobs.projection.js';
import { REVIEW_JOBS, type ReviewJobDoc } from '../../projections/review-jobs.read-model.js';
import { ReviewQueues } from '../../review-queues.js';
import { ListReviewQueuesQuery, type ReviewQueueSummary } from './list-review-queues.query.js';
import { COUNTED_JOBS } from '../list-review-jobs/list-review-jobs.query.js';

const EXPIRED_PAGE = 200;

@QueryHandler(ListReviewQueuesQuery)
export class ListReviewQueuesHandler implements IQueryHandler<ListReviewQueuesQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly queues: ReviewQueues,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly queries: QueryBus,
  ) {}

  async execute(query: ListReviewQueuesQuery): Promise<ReviewQueueSummary[]> {
    await this.projections.catchUp(REVIEW_JOBS_PROJECTION);
    const [queues, management] = await Promise.all([
      this.queues.visible(query.orgId, query.viewer.permissions),
      this.queries.execute(new GetConfigManagementQuery(query.orgId)),
    ]);
    return Promise.all(queues.map((q) => this.summary(query.orgId, q, management)));
  }

  private async summary(orgId: string, queue: QueueDefinition, management: ConfigManagement): Promise<ReviewQueueSummary> {
    const managed = management.queues[queue.id];
    const now = this.clock.now();
    const base = { orgId, queueId: queue.id };
    const [pending, assigned, locked, expired] = await Promise.all([
      // Every screen of the review console lists the queues: a flooded queue is counted only so far.
      countUpTo(this.readStore, REVIEW_JOBS, { ...base, state: 'PENDING' }, COUNTED_JOBS),
      // Assigned and locked jobs are held by moderators, a handful each.
      this.readStore.count(REVIEW_JOBS, { ...base, state: 'ASSIGNED' }),
      this.readStore.count(REVIEW_JOBS, { ...base, state: 'LOCKED' }),
      this.expiredLocks(base, now.toISOString()),
    ]);
    const oldest = await Promise.all(
      (['PENDING', 'ASSIGNED'] as const).map((state) =>
        this.readStore.find<ReviewJobDoc>(REVIEW_JOBS, { ...base, state }, { sort: [{ field: 'fifoKey', direction: 'asc' }], limit: 1 }),
      ),
    );
    const openedAts = [...oldest.flat(), ...expired].map((d) => d.openedAt).sort();
    const oldestPendingAt = openedAts[0] ?? null;
    return {
      id: queue.id,
      name: queue.name,
      order: queue.order,
      lockTimeoutSeconds: queue.lockTimeoutSeconds,
      isDefault: queue.isDefault,
      isAppealsDefault: queue.isAppealsDefault,
      autoCloseAfterDays: queue.autoCloseAfterDays,
      managedBy: managed?.managedBy ?? 'builtin',
      file: managed?.file ?? null,
      pending: pending.total + assigned + expired.length,
      pendingExact: pending.exact,
      locked: locked - expired.length,
      oldestPendingAt,
      oldestPendingAgeSeconds: oldestPendingAt === null ? null : Math.max(0, Math.floor((now.getTime() - Date.parse(oldestPendingAt)) / 1000)),
    };
  }

  /** The read model keeps a job LOCKED after its lock expired: such a job waits again. */
  private async expiredLocks(base: { orgId: string; queueId: string }, now: string): Promise<ReviewJobDoc[]> {
    const expired: ReviewJobDoc[] = [];
    for (let skip = 0; ; skip += EXPIRED_PAGE) {
      const page = await this.readStore.find<ReviewJobDoc>(
        REVIEW_JOBS,
        { ...base, state: 'LOCKED' },
        {
          sort: [{ field: 'lockExpiresAt', direction: 'asc' }],
          limit: EXPIRED_PAGE,
          skip,
        },
      );
      for (const doc of page) {
        if (doc.lockExpiresAt === null || doc.lockExpiresAt > now) return expired;
        expired.push(doc);
      }
      if (page.length < EXPIRED_PAGE) return expired;
    }
  }
}
