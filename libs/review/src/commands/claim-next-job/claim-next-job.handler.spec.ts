import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import type { QueueDefinition } from '#warden/catalog/contracts';
import { ProjectionRunner } from '#warden/eventstore';
import { type CommandContext, randomIds } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { reviewJobDecider } from '../../domain/review-job.decider.js';
import type { EnqueueRequest, JobPolicy } from '../../domain/review-job.events.js';
import { reviewJobStream } from '../../domain/review.streams.js';
import { JobEnqueuer } from '../../enqueue/job-enqueuer.js';
import { reviewJobsProjection } from '../../projections/review-jobs.projection.js';
import type { ReviewQueues } from '../../review-queues.js';
import { ClaimCoordinator } from './claim-coordinator.js';
import { ItemVersions } from '../../item-versions.js';
import { ClaimNextJobCommand } from './claim-next-job.command.js';
import { lockTokenHash } from '../../domain/lock-token.js';
import { ClaimNextJobHandler } from './claim-next-job.handler.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const queue = (id: string, order: 'FIFO' | 'PRIORITY', lockTimeoutSeconds = 60): QueueDefinition => ({
  id,
  name: id,
  isDefault: id === 'default',
  isAppealsDefault: false,
  lockTimeoutSeconds,
  order,
  autoCloseAfterDays: null,
});
const QUEUES = [queue('default', 'FIFO'), queue('spam', 'PRIORITY')];
const severe: JobPolicy = { id: 'violence', name: 'Violence', penalty: 'SEVERE' };
const low: JobPolicy = { id: 'spam', name: 'Spam', penalty: 'LOW' };

/** A world with real SQLite stores, the real decider and projection; only the catalog's queue list is given. */
function world() {
  const stores = sqliteStores();
  let now = T0;
  const clock = { now: () => new Date(now) };
  const aggregates = new AggregateStore(stores.events, clock, randomIds);
  const enqueuer = new JobEnqueuer(aggregates, clock);
  // The narrowest seam: the catalog's queues (ReviewQueues reads them through the query bus).
  const queues = {
    require: async (_org: string, id: string) => {
      const found = QUEUES.find((q) => q.id === id);
      if (!found) throw new Error(`no queue ${id}`);
      return found;
    },
  } as unknown as ReviewQueues;
  const coordinator = new ClaimCoordinator();
  const projection = new ProjectionRunner(reviewJobsProjection, stores.events, stores.readStore);
  const handler = new ClaimNextJobHandler(
    aggregates,
    queues,
    coordinator,
    new ItemVersions(stores.events),
    stores.readStore,
    clock,
    randomIds,
    { catchUp: () => projection.catchUp() },
    stores.events,
  );
  const context = (actor: string): CommandContext => ({ orgId: 'acme', correlationId: randomIds.uuid(), actor });
  let seq = 0;
  return {
    stores,
    aggregates,
    handler,
    advance: (seconds: number) => {
      now += seconds * 1000;
    },
    /** Opens a job for a new item (one request per report); returns its id. */
    async job(queueId: string, reports = 1, policies: JobPolicy[] = []): Promise<string> {
      const itemId = `item-${++seq}`;
      let jobId = '';
      for (let r = 0; r < reports; r++) {
        const request: EnqueueRequest = {
          requestId: `${itemId}-r${r}`,
          source: 'REPORT',
          at: new Date(now).toISOString(),
          version: 1,
          report: {
            reportId: `${itemId}-r${r}`,
            reporter: { kind: 'user', id: `u${r}`, typeId: 'user' },
            reportedAt: new Date(now).toISOString(),
            hasReason: false,
            policyId: null,
            csam: false,
          },
          action: null,
          policies,
          routedBy: null,
          fromJobId: null,
        };
        jobId = (await enqueuer.enqueue(context('system'), { queueId, item: { id: itemId, typeId: 'post', typeName: 'Post' }, request })).jobId;
      }
      now += 1000;
      return jobId;
    },
    /** Opens (or merges into) the job of `itemId` in the queue with one request; returns its id. */
    async open(queueId: string, itemId: string, request: Omit<EnqueueRequest, 'at' | 'version'>): Promise<string> {
      const at = new Date(now).toISOString();
      now += 1000;
      return (
        await enqueuer.enqueue(context('system'), { queueId, item: { id: itemId, typeId: 'post', typeName: 'Post' }, request: { ...request, at, version: 1 } })
      ).jobId;
    },
    project: () => projection.catchUp(),
    claim: (moderator: string, queueId = 'default') =>
      handler.execute(new ClaimNextJobCommand(queueId, { userId: moderator, permissions: ['VIEW_MRT', 'DECIDE_MRT'] }, context(moderator))),
    async command(jobId: string, actor: string, command: Parameters<typeof reviewJobDecider.decide>[0]) {
      await aggregates.handle(reviewJobStream('acme', jobId), reviewJobDecider, command, context(actor));
    },
    at: (offsetSeconds = 0) => new Date(now + offsetSeconds * 1000).toISOString(),
  };
}

describe('claim-next', () => {
  let w: ReturnType<typeof world>;
  afterEach(async () => {
    await w?.stores.close();
  });

  it('brings the read model up to the log before answering that nothing is on offer (a job opened or released a moment ago)', async () => {
    w = world();
    const a = await w.job('default');
    // Not projected yet: the read model has no job at all.
    expect((await w.claim('alice'))?.jobId).toBe(a);
  });

  it('offers the oldest job first in a FIFO queue, and never the same job twice while it is held', async () => {
    w = world();
    const a = await w.job('default');
    const b = await w.job('default');
    await w.project();
    const first = await w.claim('alice');
    expect(first?.jobId).toBe(a);
    // The read model has not seen the claim yet: the stream refuses the job to bob; he gets the next.
    expect((await w.claim('bob'))?.jobId).toBe(b);
    await w.project();
    expect(await w.claim('carol')).toBeNull();
  });

  it('offers more reports, then more severe policies, then older first in a PRIORITY queue', async () => {
    w = world();
    const oldSingle = await w.job('spam', 1, [low]);
    const severeSingle = await w.job('spam', 1, [severe]);
    const threeReports = await w.job('spam', 3, [low]);
    const newerSingle = await w.job('spam', 1, [low]);
    await w.project();
    const order = [];
    for (const m of ['m1', 'm2', 'm3', 'm4']) order.push((await w.claim(m, 'spam'))?.jobId);
    expect(order).toEqual([threeReports, severeSingle, oldSingle, newerSingle]);
  });

  it('offers a job assigned to the caller before older ones, and never to anyone else', async () => {
    w = world();
    const older = await w.job('default');
    const assigned = await w.job('default');
    await w.command(assigned, 'boss', { type: 'Assign', moderatorId: 'carol', managerId: 'boss', now: w.at() });
    await w.project();
    expect((await w.claim('carol'))?.jobId).toBe(assigned);
    expect((await w.claim('bob'))?.jobId).toBe(older);
    await w.project();
    expect(await w.claim('dave')).toBeNull();
  });

  it('offers a job whose lock expired to anyone, and the former holder can no longer renew it', async () => {
    w = world();
    const job = await w.job('default');
    await w.project();
    const held = await w.claim('alice');
    await w.project();
    expect(await w.claim('bob')).toBeNull();
    w.advance(61);
    const taken = await w.claim('bob');
    expect(taken?.jobId).toBe(job);
    await expect(
      w.command(job, 'alice', { type: 'RenewLock', moderatorId: 'alice', lockTokenHash: lockTokenHash(held!.lock.token), expiresAt: w.at(60), now: w.at() }),
    ).rejects.toMatchObject({ kind: 'lock-not-held' });
  });

  it('does not offer a job to the moderator who skipped it until the skip ends, but to others at once', async () => {
    w = world();
    const job = await w.job('default');
    await w.project();
    const held = await w.claim('alice');
    await w.command(job, 'alice', { type: 'Skip', moderatorId: 'alice', lockTokenHash: lockTokenHash(held!.lock.token), skipUntil: w.at(600), now: w.at() });
    await w.project();
    expect(await w.claim('alice')).toBeNull();
    w.advance(10);
    const other = await w.claim('bob');
    expect(other?.jobId).toBe(job);
    await w.command(job, 'bob', { type: 'ReleaseLock', moderatorId: 'bob', lockTokenHash: lockTokenHash(other!.lock.token), now: w.at() });
    await w.project();
    w.advance(600);
    expect((await w.claim('alice'))?.jobId).toBe(job);
  });

  it('pages past a full page of jobs the caller skipped', async () => {
    w = world();
    const jobs = [];
    for (let i = 0; i < 23; i++) jobs.push(await w.job('default'));
    await w.project();
    for (let i = 0; i < 22; i++) {
      const held = await w.claim('alice');
      await w.command(held!.jobId, 'alice', {
        type: 'Skip',
        moderatorId: 'alice',
        lockTokenHash: lockTokenHash(held!.lock.token),
        skipUntil: w.at(600),
        now: w.at(),
      });
    }
    await w.project();
    expect((await w.claim('alice'))?.jobId).toBe(jobs[22]);
  });

  it('gives every job to exactly one of many concurrent claimers, even when the read model lags', async () => {
    w = world();
    for (let i = 0; i < 30; i++) await w.job('default');
    await w.project();
    const moderators = Array.from({ length: 40 }, (_, i) => `m${i}`);
    const claims = await Promise.all(moderators.map((m) => w.claim(m)));
    const jobIds = claims.filter((c) => c !== null).map((c) => c!.jobId);
    expect(jobIds).toHaveLength(30);
    expect(new Set(jobIds).size).toBe(30);
  });

  it('gives every job to exactly one claimer when each claimer is its own process (no shared memory, no serialization)', async () => {
    w = world();
    for (let i = 0; i < 15; i++) await w.job('default');
    await w.project();
    const processes = Array.from({ length: 20 }, (_, i) => ({
      moderator: `p${i}`,
      handler: new ClaimNextJobHandler(
        w.aggregates,
        { require: async () => QUEUES[0] } as unknown as ReviewQueues,
        new ClaimCoordinator(),
        new ItemVersions(w.stores.events),
        w.stores.readStore,
        { now: () => new Date(w.at()) },
        randomIds,
        { catchUp: () => w.project() },
        w.stores.events,
      ),
    }));
    const claims = await Promise.all(
      processes.map(({ moderator, handler }) =>
        handler.execute(
          new ClaimNextJobCommand('default', { userId: moderator, permissions: ['DECIDE_MRT'] }, { orgId: 'acme', correlationId: moderator, actor: moderator }),
        ),
      ),
    );
    const jobIds = claims.filter((c) => c !== null).map((c) => c!.jobId);
    expect(jobIds).toHaveLength(15);
    expect(new Set(jobIds).size).toBe(15);
  });

  it("a second process without this one's memory loses the race on the stream and moves on", async () => {
    w = world();
    const a = await w.job('default');
    const b = await w.job('default');
    await w.project();
    const other = new ClaimNextJobHandler(
      w.aggregates,
      { require: async () => QUEUES[0] } as unknown as ReviewQueues,
      new ClaimCoordinator(),
      new ItemVersions(w.stores.events),
      w.stores.readStore,
      { now: () => new Date(w.at()) },
      randomIds,
      { catchUp: () => w.project() },
      w.stores.events,
    );
    expect((await w.claim('alice'))?.jobId).toBe(a);
    const ctx: CommandContext = { orgId: 'acme', correlationId: 'c', actor: 'bob' };
    expect((await other.execute(new ClaimNextJobCommand('default', { userId: 'bob', permissions: ['DECIDE_MRT'] }, ctx)))?.jobId).toBe(b);
  });

  it('does not offer an appeal job to a moderator who took an appealed action on its item since the appeal came in; others get it', async () => {
    w = world();
    const plain = { source: 'REPORT' as const, report: null, action: null, policies: [], routedBy: null, fromJobId: null };
    // A rule removed item-x: its appeal opens with no one to exclude.
    const appealed = await w.open('default', 'item-x', {
      ...plain,
      requestId: 'appeal-1',
      appeal: { appealId: 'appeal-1', actionsTaken: ['remove'], violatingPolicyIds: [], excludedModerators: [] },
    });
    // Then a report's job on the same item, which alice claims and decides with the appealed action.
    const reported = await w.open('spam', 'item-x', { ...plain, requestId: 'report-1' });
    await w.project();
    const claimed = await w.claim('alice', 'spam');
    expect(claimed?.jobId).toBe(reported);
    await w.command(reported, 'alice', {
      type: 'Decide',
      moderatorId: 'alice',
      lockTokenHash: lockTokenHash(claimed!.lock.token),
      decision: {
        decisionId: 'dec-1',
        type: 'CUSTOM_ACTION',
        actor: { userId: 'alice' },
        actionIds: ['remove'],
        policies: [],
        reason: null,
        note: null,
        parameters: {},
        targetQueueId: null,
        deliveryIds: [],
      },
      callbacks: [],
      childSafetyReport: null,
      now: w.at(),
    });
    await w.project();
    expect(await w.claim('alice')).toBeNull();
    expect((await w.claim('bob'))?.jobId).toBe(appealed);
  });

  it("reads candidates through the collection's indexes (claim latency does not grow with the queue)", async () => {
    w = world();
    for (const index of reviewJobsProjection.indexes ?? []) await w.stores.readStore.ensureIndex(index.collection, index.fields);
    await w.job('default');
    await w.project();
    const db = w.stores.open();
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((r) => r.detail).join('\n');
    const candidates = (extra: string, sort: string) =>
      `SELECT doc FROM "rm/review_jobs" WHERE 1 AND json_extract(doc, '$.orgId') = 'acme' AND json_extract(doc, '$.queueId') = 'default' AND json_extract(doc, '$.state') = '${extra ? 'ASSIGNED' : 'PENDING'}'${extra} ORDER BY json_extract(doc, '$.${sort}') ASC, rowid ASC LIMIT 20 OFFSET 0`;
    for (const [extra, sort, index] of [
      ['', 'fifoKey', 'rm/review_jobs/orgId,queueId,state,fifoKey'],
      ['', 'priorityKey', 'rm/review_jobs/orgId,queueId,state,priorityKey'],
      ['', 'lockExpiresAt', 'rm/review_jobs/orgId,queueId,state,lockExpiresAt'],
      // The queue's assigned jobs in its order, filtered on the moderator: assignments are few.
      [" AND json_extract(doc, '$.assignedTo') = 'carol'", 'fifoKey', 'rm/review_jobs/orgId,queueId,state,fifoKey'],
      [" AND json_extract(doc, '$.assignedTo') = 'carol'", 'priorityKey', 'rm/review_jobs/orgId,queueId,state,priorityKey'],
    ] as const) {
      const detail = plan(candidates(extra, sort));
      expect(detail, detail).toContain(`USING INDEX ${index}`);
      expect(detail).not.toMatch(/SCAN rm\/review_jobs(?! USING)/);
      // Read in index order (ties by first write, the rowid ending every index entry), LIMIT stops early.
      expect(detail).not.toContain('USE TEMP B-TREE');
    }
    // The queue list counts a queue's jobs in a state over the narrowest index (assignedTo is
    // mostly null): over one holding the long order keys it took three times as long at 100,000.
    const count = plan(
      `SELECT count(*) AS n FROM "rm/review_jobs" WHERE 1 AND json_extract(doc, '$.orgId') = 'acme' AND json_extract(doc, '$.queueId') = 'default' AND json_extract(doc, '$.state') = 'PENDING'`,
    );
    expect(count).toContain('USING COVERING INDEX rm/review_jobs/orgId,queueId,state,assignedTo');
  });
});
