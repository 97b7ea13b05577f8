import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#warden/eventstore';
import { FixedClock, randomIds, type RecordedEvent } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { jobDecision as decision, reportRequest } from '../../../../test/support/review-events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { reviewJobDecider } from '../domain/review-job.decider.js';
import { jobRequestsOf } from '../domain/job-requests.js';
import type { ReviewJobDecided } from '../domain/review-job.events.js';
import { reviewJobId, reviewJobStream } from '../domain/review.streams.js';
import { JobEnqueuer } from './job-enqueuer.js';
import { reportJobsReactor } from './report-jobs.reactor.js';

const ORG = 'acme';
const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
const context = { orgId: ORG, correlationId: 'test', actor: 'test' };

describe('report jobs reactor: a transformed job is recreated in its target queue', () => {
  const stores = sqliteStores();
  afterAll(() => stores.close());

  const clock = new FixedClock(new Date('2026-11-23T12:00:00Z'));
  const aggregates = new AggregateStore(new SqliteEventStore(stores.open()), clock, randomIds);
  const enqueuer = new JobEnqueuer(aggregates, clock);
  const reactor = reportJobsReactor({ enqueuer, aggregates });
  const ctx = { get: async () => undefined, put: () => {}, delete: () => {}, writtenBefore: async () => false };

  /** Appends the decision to the job's stream as the decision handler would, and returns it as recorded. */
  async function decide(jobId: string, event: ReviewJobDecided): Promise<RecordedEvent> {
    const stream = reviewJobStream(ORG, jobId);
    await aggregates.record(stream, [event], context, 'any');
    const recorded = await stores.events.readStream(stream);
    return recorded.at(-1)!;
  }

  it('recreates it with source MRT_JOB, the old requests carried, once', async () => {
    const old = await enqueuer.enqueue(context, { queueId: 'default', item, request: reportRequest('rpt_1') });
    await enqueuer.enqueue(context, { queueId: 'default', item, request: reportRequest('rpt_2') });
    const decided = await decide(old.jobId, decision(old.jobId, 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', 'spam'));

    await reactor.apply(decided, ctx);
    await reactor.apply(decided, ctx); // redelivered: nothing more

    const newJobId = reviewJobId(ORG, item, 'spam', 0);
    const { state, events } = await aggregates.load(reviewJobStream(ORG, newJobId), reviewJobDecider);
    expect(events.map((e) => e.type)).toEqual(['ReviewJobOpened']);
    expect(state).toMatchObject({ status: 'OPEN', queueId: 'spam', item });
    expect(jobRequestsOf(events).requests.map((r) => [r.requestId, r.source, r.fromJobId])).toEqual([
      // Each carried request names the job whose stream holds its reason.
      ['rpt_1', 'REPORT', old.jobId],
      ['rpt_2', 'REPORT', old.jobId],
      ['dec-TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', 'MRT_JOB', old.jobId],
    ]);
  });

  it('recreates nothing for other decisions', async () => {
    const other = { ...item, id: 'p2' };
    const old = await enqueuer.enqueue(context, { queueId: 'default', item: other, request: reportRequest('rpt_3') });
    await reactor.apply(await decide(old.jobId, decision(old.jobId, 'IGNORE', null)), ctx);
    for (const queueId of ['default', 'spam']) {
      const generation = queueId === 'default' ? 1 : 0;
      expect(await aggregates.exists(reviewJobStream(ORG, reviewJobId(ORG, other, queueId, generation)))).toBe(false);
    }
  });
});
