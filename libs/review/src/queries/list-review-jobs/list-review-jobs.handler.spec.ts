import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DomainError } from '#warden/kernel';
import { SqliteReadStore } from '#warden/readstore';
import type { ProjectionHost } from '#warden/storage';
import { reviewJobsProjection } from '../../projections/review-jobs.projection.js';
import { REVIEW_JOBS } from '../../projections/review-jobs.read-model.js';
import type { ReviewQueues } from '../../review-queues.js';
import { ListReviewJobsHandler } from './list-review-jobs.handler.js';
import { COUNTED_JOBS, ListReviewJobsQuery } from './list-review-jobs.query.js';

const ADMIN = { permissions: ['VIEW_CHILD_SAFETY_DATA'] as const };

/** The jobs read model with `n` PENDING jobs of queue q1, its indexes made; the queue and the catch-up stubbed (not what is tested). */
async function handlerWith(n: number) {
  const store = new SqliteReadStore(new Database(':memory:'));
  for (const index of reviewJobsProjection.indexes ?? []) await store.ensureIndex(index.collection, index.fields);
  const openedAt = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  await store.commit(
    Array.from({ length: n }, (_, i) => ({
      op: 'put' as const,
      collection: REVIEW_JOBS,
      id: `j${i}`,
      doc: { orgId: 'acme', jobId: `j${i}`, queueId: 'q1', state: 'PENDING', openedAt: openedAt(i), fifoKey: `${openedAt(i)}|j${i}` },
    })),
  );
  const counts: unknown[][] = [];
  const counting = Object.assign(Object.create(store) as SqliteReadStore, {
    count: (...args: Parameters<SqliteReadStore['count']>) => (counts.push(args), store.count(...args)),
  });
  const queues = { require: async () => ({ id: 'q1' }) } as unknown as ReviewQueues;
  const projections = { catchUp: async () => {} } as unknown as ProjectionHost;
  return { handler: new ListReviewJobsHandler(counting, queues, projections), counts };
}

describe('the managers’ jobs list (ListReviewJobsHandler)', () => {
  it('counts up to 10,000, says when more match, and pages no further than the 10,000th', async () => {
    const { handler, counts } = await handlerWith(COUNTED_JOBS + 20);
    const first = await handler.execute(new ListReviewJobsQuery('acme', ADMIN, { queueId: 'q1' }, 1, 50));
    expect(first).toMatchObject({ total: COUNTED_JOBS, totalExact: false, page: 1 });
    expect(first.jobs.map((j) => j.jobId).slice(0, 2)).toEqual(['j0', 'j1']);
    expect(counts.every((args) => (args[2] as { limit?: number } | undefined)?.limit === COUNTED_JOBS + 1)).toBe(true);
    // The page that starts at the 10,000th job is the last one listed.
    expect((await handler.execute(new ListReviewJobsQuery('acme', ADMIN, { queueId: 'q1' }, COUNTED_JOBS / 50 + 1, 50))).jobs).toHaveLength(20);
    const beyond = await handler.execute(new ListReviewJobsQuery('acme', ADMIN, { queueId: 'q1' }, COUNTED_JOBS / 50 + 2, 50)).catch((e: unknown) => e);
    expect(beyond).toBeInstanceOf(DomainError);
    expect((beyond as DomainError).details[0]).toMatchObject({ pointer: '/page' });
    // A narrower filter is exact.
    const older = await handler.execute(new ListReviewJobsQuery('acme', ADMIN, { queueId: 'q1', openedBefore: '2026-01-01T00:00:10Z' }, 1, 50));
    expect(older).toMatchObject({ total: 10, totalExact: true });
  });
});
