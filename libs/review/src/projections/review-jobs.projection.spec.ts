import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner, rebuildReadModels } from '#warden/eventstore';
import type { JsonObject } from '#warden/kernel';
import { fifoKey } from '../domain/job-order.js';
import type { EnqueueRequest } from '../domain/review-job.events.js';
import { reviewJobStream } from '../domain/review.streams.js';
import { reviewJobsProjection } from './review-jobs.projection.js';
import { REVIEW_JOBS, type ReviewJobDoc, reviewJobDocId } from './review-jobs.read-model.js';

const T0 = '2026-01-01T00:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const request = (requestId: string, penalty: 'LOW' | 'SEVERE' | null = null): EnqueueRequest => ({
  requestId,
  source: 'REPORT',
  at: T0,
  version: 1,
  report: { reportId: requestId, reporter: { kind: 'user', id: 'u1', typeId: 'user' }, reportedAt: T0, hasReason: false, policyId: null, csam: false },
  action: null,
  policies: penalty ? [{ id: `p-${penalty}`, name: penalty, penalty }] : [],
  routedBy: null,
  fromJobId: null,
});

const opened = (jobId: string, openedAt = T0) =>
  anEvent('ReviewJobOpened', {
    jobId,
    queueId: 'default',
    generation: 0,
    item: { id: `item-${jobId}`, typeId: 'post', typeName: 'Post' },
    request: request(`r-${jobId}`),
    carried: [],
    openedAt,
    reasons: {},
    subject: null,
  } as unknown as JsonObject);

const job = (name: string) => ({ name, data: (type: string, data: object) => anEvent(type, { jobId: name, ...data } as JsonObject) });

describe('review jobs projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  async function seed() {
    const { events } = stores;
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(job) as [ReturnType<typeof job>, ReturnType<typeof job>, ReturnType<typeof job>, ReturnType<typeof job>];
    // a: merged twice (one severe), claimed, renewed.
    await events.append(reviewJobStream('acme', 'a'), [opened('a')], 'no_stream');
    await events.append(
      reviewJobStream('acme', 'a'),
      [
        a.data('ReviewJobMerged', { request: request('r2', 'SEVERE'), mergedAt: at(1), reasons: {}, subject: null }),
        a.data('ReviewJobClaimed', { moderatorId: 'alice', lockTokenHash: 'h', claimedAt: at(2), expiresAt: at(62) }),
        a.data('ReviewJobLockRenewed', { moderatorId: 'alice', renewedAt: at(30), expiresAt: at(90) }),
      ],
      0,
    );
    // b: claimed, then skipped.
    await events.append(
      reviewJobStream('acme', 'b'),
      [
        opened('b', at(1)),
        b.data('ReviewJobClaimed', { moderatorId: 'alice', lockTokenHash: 'h', claimedAt: at(2), expiresAt: at(62) }),
        b.data('ReviewJobSkipped', { moderatorId: 'alice', skippedAt: at(3), skipUntil: at(603) }),
      ],
      'no_stream',
    );
    // c: assigned, then claimed by the assignee and skipped: the skip gives the assignment up, as a release does.
    await events.append(
      reviewJobStream('acme', 'c'),
      [
        opened('c', at(2)),
        c.data('ReviewJobAssigned', { moderatorId: 'carol', assignedBy: 'boss', assignedAt: at(3) }),
        c.data('ReviewJobClaimed', { moderatorId: 'carol', lockTokenHash: 'h', claimedAt: at(4), expiresAt: at(64) }),
        c.data('ReviewJobSkipped', { moderatorId: 'carol', skippedAt: at(5), skipUntil: at(605) }),
      ],
      'no_stream',
    );
    // d: claimed, released by a manager, claimed again and decided.
    await events.append(
      reviewJobStream('acme', 'd'),
      [
        opened('d', at(3)),
        d.data('ReviewJobClaimed', { moderatorId: 'alice', lockTokenHash: 'h', claimedAt: at(4), expiresAt: at(64) }),
        d.data('ReviewJobReleased', { moderatorId: 'alice', releasedAt: at(5), releasedBy: 'boss', reason: 'MANAGER_RELEASE' }),
        d.data('ReviewJobClaimed', { moderatorId: 'bob', lockTokenHash: 'h2', claimedAt: at(6), expiresAt: at(66) }),
        d.data('ReviewJobDecided', {
          decisionId: 'dec',
          type: 'IGNORE',
          actor: { userId: 'bob', email: 'bob@example.com' },
          actionIds: [],
          policies: [],
          reason: null,
          note: null,
          parameters: {},
          targetQueueId: null,
          closeReason: null,
          deliveryIds: [],
          decidedAt: at(7),
        }),
      ],
      'no_stream',
    );
  }

  const doc = (jobId: string) => stores.readStore.get<ReviewJobDoc>(REVIEW_JOBS, reviewJobDocId('acme', jobId));
  const dump = async () => JSON.stringify(await stores.readStore.find(REVIEW_JOBS));

  it('follows each job through claims, renewals, skips, assignments, releases and the decision', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(reviewJobsProjection, stores.events, stores.readStore).catchUp();
    expect(await doc('a')).toMatchObject({
      state: 'LOCKED',
      lockedBy: 'alice',
      lockExpiresAt: at(90),
      reportCount: 2,
      severity: 4,
      firstClaimedAt: at(2),
      fifoKey: fifoKey(T0, 'a'),
    });
    expect(await doc('b')).toMatchObject({ state: 'PENDING', lockedBy: null, lockExpiresAt: null, skips: { alice: at(603) } });
    expect(await doc('c')).toMatchObject({ state: 'PENDING', assignedTo: null, lockedBy: null, skips: { carol: at(605) } });
    expect(await doc('d')).toMatchObject({
      state: 'CLOSED',
      lockedBy: null,
      firstClaimedAt: at(4),
      decision: { decisionId: 'dec', type: 'IGNORE', actorId: 'bob', decidedAt: at(7), closeReason: null, actionIds: [] },
    });
    // PRIORITY: more reports first.
    const [first] = await stores.readStore.find<ReviewJobDoc>(REVIEW_JOBS, {}, { sort: [{ field: 'priorityKey', direction: 'asc' }], limit: 1 });
    expect(first?.jobId).toBe('a');
  });

  it('counts the requests of a moved job it names (CarriedJob) as if they were listed', async () => {
    stores = sqliteStores();
    const named = {
      jobId: 'old',
      requests: 700,
      reports: 650,
      sources: ['REPORT', 'RULE_EXECUTION'],
      policies: [{ id: 'p-SEVERE', name: 'SEVERE', penalty: 'SEVERE' }],
      version: 5,
      ruleDetected: true,
    };
    const moved = anEvent('ReviewJobOpened', {
      jobId: 'moved',
      queueId: 'default',
      generation: 0,
      item: { id: 'item-moved', typeId: 'post', typeName: 'Post' },
      request: { ...request('dec-old'), source: 'MRT_JOB', report: null, fromJobId: 'old' },
      carried: [],
      carriedFrom: named,
      openedAt: T0,
      reasons: {},
      subject: null,
    } as unknown as JsonObject);
    await stores.events.append(reviewJobStream('acme', 'moved'), [moved], 'no_stream');
    await new ProjectionRunner(reviewJobsProjection, stores.events, stores.readStore).catchUp();
    expect(await doc('moved')).toMatchObject({
      reportCount: 650,
      requestCount: 701,
      sources: ['REPORT', 'RULE_EXECUTION', 'MRT_JOB'],
      policyIds: ['p-SEVERE'],
      severity: 4,
      version: 5,
    });
  });

  it('leaves the read model identical when the whole log is replayed twice', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(reviewJobsProjection, stores.events, stores.readStore).catchUp();
    const live = await dump();
    await rebuildReadModels([reviewJobsProjection], stores.events, stores.readStore);
    const once = await dump();
    await rebuildReadModels([reviewJobsProjection], stores.events, stores.readStore);
    expect(once).toBe(live);
    expect(await dump()).toBe(once);
  });
});
