import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#warden/kernel';
import { jobDecision as decision, reportRequest } from '../../../../test/support/review-events.js';
import { reviewWriteSide } from '../../../../test/support/review-write-side.js';
import { reviewJobDecider } from '../domain/review-job.decider.js';
import { JOB_REQUESTS_COPIED, jobRequestsFollowing, jobRequestsOf } from '../domain/job-requests.js';
import type { ReviewJobDecided } from '../domain/review-job.events.js';
import { reviewJobId, reviewJobStream } from '../domain/review.streams.js';
import { reportJobsReactor } from './report-jobs.reactor.js';

const ORG = 'acme';
const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
const context = { orgId: ORG, correlationId: 'test', actor: 'test' };

describe('report jobs reactor: a transformed job is recreated in its target queue', () => {
  const { stores, events, aggregates, enqueuer, jobReports } = reviewWriteSide();
  const reactor = reportJobsReactor({ enqueuer, aggregates, jobReports });
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

  it('names a moved job with many requests instead of copying them into one event; they are listed all the same', async () => {
    const many = { ...item, id: 'p-many' };
    const ids = Array.from({ length: JOB_REQUESTS_COPIED + 1 }, (_, i) => `rpt_many_${i}`);
    let old: Awaited<ReturnType<typeof enqueuer.enqueue>> | undefined;
    for (const id of ids) old = await enqueuer.enqueue(context, { queueId: 'default', item: many, request: reportRequest(id, { version: 2 }) });
    const decided = await decide(old!.jobId, decision(old!.jobId, 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', 'spam', 'dec-many'));

    // Named from the moved job's state (cached here): none of its 501 events read again.
    events.reset();
    await reactor.apply(decided, ctx);
    expect(events.eventsRead).toBeLessThan(10);
    await reactor.apply(decided, ctx); // redelivered: nothing more

    const { state, events: history } = await aggregates.load(reviewJobStream(ORG, reviewJobId(ORG, many, 'spam', 0)), reviewJobDecider);
    expect(history.map((e) => e.type)).toEqual(['ReviewJobOpened']);
    const openedEvent = history[0]!;
    if (openedEvent.type !== 'ReviewJobOpened') throw new Error('not opened');
    expect(openedEvent.data.carried).toEqual([]);
    expect(openedEvent.data.carriedFrom).toEqual({
      jobId: old!.jobId,
      requests: ids.length,
      reports: ids.length,
      csamReports: 0,
      sources: ['REPORT'],
      policies: [],
      version: 2,
      ruleDetected: false,
    });
    expect(state).toMatchObject({ requestCount: ids.length + 1, reportCount: ids.length, itemVersion: 2 });
    const load = async (jobId: string) => (await aggregates.load(reviewJobStream(ORG, jobId), reviewJobDecider)).events;
    const listed = await jobRequestsFollowing(history, load, state.requestCount);
    expect(listed.requests.map((r) => r.requestId)).toEqual([...ids, 'dec-many']);
    expect(listed.requests.every((r) => r.fromJobId === old!.jobId)).toBe(true);
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
