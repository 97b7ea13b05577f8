import { afterEach, describe, expect, it } from 'vitest';
import { appealPart, ruleRequest } from '../../../../test/support/review-events.js';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner } from '#warden/eventstore';
import { FixedClock, foldStream, type JsonObject, randomIds } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { reviewJobDecider } from '../domain/review-job.decider.js';
import type { ReviewJobDecided } from '../domain/review-job.events.js';
import { appealJobId, reviewJobStream } from '../domain/review.streams.js';
import { JobEnqueuer } from '../enqueue/job-enqueuer.js';
import { autoCloseQueuesProjection } from '../projections/auto-close-queues.projection.js';
import { reviewJobsProjection } from '../projections/review-jobs.projection.js';
import type { ActionExecuted } from '#warden/enforcement';
import { JobAutoCloser } from './job-auto-closer.js';

const DAY = 86_400_000;
const T0 = new Date('2026-03-01T00:00:00.000Z');

/** AUTOMATIC_CLOSE against real SQLite stores, with a clock the test moves (never a sleep). */
describe('JobAutoCloser', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  function world() {
    stores = sqliteStores();
    const clock = new FixedClock(T0);
    const aggregates = new AggregateStore(stores.events, clock, randomIds);
    const runners = [reviewJobsProjection, autoCloseQueuesProjection].map((p) => new ProjectionRunner(p, stores.events, stores.readStore));
    const closer = new JobAutoCloser({
      readStore: stores.readStore,
      aggregates,
      clock,
      catchUp: async () => {
        for (const runner of runners) await runner.catchUp();
      },
    });
    const enqueuer = new JobEnqueuer(aggregates, clock);
    const defineQueue = (orgId: string, id: string, autoCloseAfterDays: number | null) =>
      stores.events.append(
        `org_config-${orgId}-${id}`,
        [
          anEvent(
            'QueueDefined',
            {
              kind: 'queue',
              entity: { id, name: id, isDefault: false, isAppealsDefault: false, lockTimeoutSeconds: 600, order: 'FIFO', autoCloseAfterDays } as JsonObject,
            },
            orgId,
          ),
        ],
        'any',
      );
    const open = async (orgId: string, queueId: string, itemId: string, appealId?: string) => {
      const request = ruleRequest(`${queueId}-${itemId}`, { at: clock.now().toISOString(), ...(appealId ? appealPart(appealId) : {}) });
      const context = { orgId, correlationId: 'c', causationId: null, actor: 'test' };
      const item = { id: itemId, typeId: 'post', typeName: 'Post' };
      return (await enqueuer.enqueue(context, { queueId, item, request, ...(appealId ? { jobId: appealJobId(orgId, appealId) } : {}) })).jobId;
    };
    const decisionOf = async (orgId: string, jobId: string) => {
      const stream = reviewJobStream(orgId, jobId);
      const recorded = await stores.events.readStream(stream);
      const state = foldStream(reviewJobDecider, stream, recorded);
      const decided = recorded.find((e) => e.type === 'ReviewJobDecided');
      return {
        status: state.status,
        decided: decided?.data as unknown as ReviewJobDecided['data'] | undefined,
        count: recorded.filter((e) => e.type === 'ReviewJobDecided').length,
      };
    };
    const sweepContext = { correlationId: 'sweep', causationId: null, actor: 'review' };
    return { clock, aggregates, closer, defineQueue, open, decisionOf, sweepContext };
  }

  it("closes the jobs that waited longer than their queue's autoCloseAfterDays, oldest first, once", async () => {
    const { clock, aggregates, closer, defineQueue, open, decisionOf, sweepContext } = world();
    await defineQueue('acme', 'slow', 2);
    await defineQueue('acme', 'default', null);
    await defineQueue('globex', 'q', 1);
    const old = await open('acme', 'slow', 'a');
    const never = await open('acme', 'default', 'c');
    const otherOrg = await open('globex', 'q', 'd');
    const held = await open('acme', 'slow', 'held');
    await aggregates.handle(
      reviewJobStream('acme', held),
      reviewJobDecider,
      { type: 'Claim', moderatorId: 'm1', lockTokenHash: 'h', expiresAt: new Date(T0.getTime() + 10 * DAY).toISOString(), now: clock.now().toISOString() },
      { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'm1' },
    );
    clock.advance(1.5 * DAY);
    const younger = await open('acme', 'slow', 'b');

    expect(await closer.closeExpired(sweepContext)).toBe(1);
    expect((await decisionOf('globex', otherOrg)).decided).toMatchObject({ type: 'AUTOMATIC_CLOSE', closeReason: 'EXPIRED', actor: null });
    expect((await decisionOf('acme', old)).status).toBe('OPEN');

    clock.advance(1 * DAY);
    expect(await closer.closeExpired(sweepContext)).toBe(1);
    expect((await decisionOf('acme', old)).decided).toMatchObject({ type: 'AUTOMATIC_CLOSE', closeReason: 'EXPIRED' });
    expect((await decisionOf('acme', younger)).status).toBe('OPEN');

    // Exactly two days of waiting is not longer than two days.
    clock.advance(1 * DAY);
    expect(await closer.closeExpired(sweepContext)).toBe(0);
    clock.advance(1);
    expect(await closer.closeExpired(sweepContext)).toBe(1);
    expect((await decisionOf('acme', younger)).status).toBe('CLOSED');
    expect(await closer.closeExpired(sweepContext)).toBe(0);
    // No setting, and a job a moderator holds: left alone.
    expect((await decisionOf('acme', never)).status).toBe('OPEN');
    expect((await decisionOf('acme', held)).status).toBe('OPEN');
    expect((await decisionOf('acme', old)).count).toBe(1);
  });

  it("closes the item's other open jobs with ITEM_ACTIONED, and nothing twice", async () => {
    const { closer, open, decisionOf } = world();
    const decidedJob = await open('acme', 'default', 'x');
    const other = await open('acme', 'child-safety', 'x');
    const unrelated = await open('acme', 'child-safety', 'y');
    const decision = { jobId: decidedJob, decisionId: 'dec-1', type: 'CUSTOM_ACTION' } as ReviewJobDecided['data'];
    const context = { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'review' };

    expect(await closer.closeOtherJobs(decision, context)).toBe(1);
    expect((await decisionOf('acme', other)).decided).toMatchObject({ type: 'AUTOMATIC_CLOSE', closeReason: 'ITEM_ACTIONED' });
    expect((await decisionOf('acme', decidedJob)).status).toBe('OPEN');
    expect((await decisionOf('acme', unrelated)).status).toBe('OPEN');
    expect(await closer.closeOtherJobs(decision, context)).toBe(0);
    expect((await decisionOf('acme', other)).count).toBe(1);
  });

  it('closes an erased user\'s jobs opened by the request, and leaves one opened meanwhile open (gdpr.md, "While it runs")', async () => {
    const { clock, closer, open, decisionOf } = world();
    const before = await open('acme', 'default', 'x');
    const requested = { position: await stores.events.headPosition(), at: new Date(T0.getTime() + 1000).toISOString() };
    clock.advance(2000);
    const meanwhile = await open('acme', 'child-safety', 'x');
    const context = { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'audit' };

    expect(await closer.closeJobsOfErasedUser([{ id: 'x', typeId: 'post' }], 'req-1', context, requested)).toBe(1);
    expect((await decisionOf('acme', before)).decided).toMatchObject({ type: 'AUTOMATIC_CLOSE', closeReason: 'USER_ERASED' });
    expect((await decisionOf('acme', meanwhile)).status).toBe('OPEN');
    expect(await closer.closeJobsOfErasedUser([{ id: 'x', typeId: 'post' }], 'req-1', context, requested)).toBe(0);
  });

  it('leaves appeal jobs open: an appeal is answered by ACCEPT or REJECT only', async () => {
    const { clock, closer, defineQueue, open, decisionOf, sweepContext } = world();
    await defineQueue('acme', 'appeals', 1);
    const decidedJob = await open('acme', 'default', 'z');
    const appealJob = await open('acme', 'appeals', 'z', 'ap-1');
    const decision = { jobId: decidedJob, decisionId: 'dec-2', type: 'CUSTOM_ACTION' } as ReviewJobDecided['data'];
    clock.advance(1);
    expect(await closer.closeOtherJobs(decision, { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'review' })).toBe(0);
    clock.advance(2 * DAY);
    expect(await closer.closeExpired(sweepContext)).toBe(0);
    expect((await decisionOf('acme', appealJob)).status).toBe('OPEN');
  });

  it('closes the open jobs of the items an executed action answers (its reportedItems), once, appeal jobs and its own enqueue left open', async () => {
    const { clock, closer, open, decisionOf } = world();
    const reported = await open('acme', 'default', 'r1');
    const appealJob = await open('acme', 'appeals', 'r1', 'ap-9');
    const enqueuedItself = await open('acme', 'default', 'e1');
    const context = { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'review' };
    const executed = (kind: ActionExecuted['data']['action']['kind']): ActionExecuted['data'] => ({
      executionId: `exe-${kind}`,
      action: { id: kind === 'CUSTOMER_DEFINED_ACTION' ? 'remove' : 'enqueue-to-mrt', kind },
      item: { id: 'e1', typeId: 'post', typeName: 'Post' },
      version: 0,
      policies: [],
      reportedItems: [
        { id: 'r1', typeId: 'post' },
        { id: 'e1', typeId: 'post' },
      ],
      creator: null,
      actorId: null,
      executedAt: clock.now().toISOString(),
    });
    // An enqueue of e1 closes r1's job but not e1's own (the job it opened or joined), at the same instant.
    expect(await closer.closeJobsOfReportedItems(executed('ENQUEUE_TO_MRT'), context)).toBe(1);
    expect((await decisionOf('acme', reported)).decided).toMatchObject({ type: 'AUTOMATIC_CLOSE', closeReason: 'ITEM_ACTIONED' });
    expect((await decisionOf('acme', enqueuedItself)).status).toBe('OPEN');
    expect((await decisionOf('acme', appealJob)).status).toBe('OPEN');
    expect(await closer.closeJobsOfReportedItems(executed('ENQUEUE_TO_MRT'), context)).toBe(0);
    // A customer-defined action on e1 that names e1 closes its job.
    expect(await closer.closeJobsOfReportedItems(executed('CUSTOMER_DEFINED_ACTION'), context)).toBe(1);
    expect((await decisionOf('acme', enqueuedItself)).status).not.toBe('OPEN');
  });
});
