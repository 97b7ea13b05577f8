import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents } from '../support/config-files.js';
import {
  type ReviewWorld,
  reviewOrgConfig,
  type Session,
  signInUsers,
  startReceiver,
  startReviewWorld,
  submitPostsForReview,
} from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

/**
 * 500 jobs in `npm test`: 50 moderators still contend for every claim (about 10 each), which is
 * the property; issue 13's full size, 10,000 jobs, runs with `node bench/full-size-tests.mjs`
 * (REVIEW_CONCURRENCY_JOBS=10000), where it took 141 s of a CI run.
 */
const JOBS = Number(process.env['REVIEW_CONCURRENCY_JOBS'] ?? 500);
const MODERATORS = 50;

interface QueueSummary {
  id: string;
  pending: number;
  locked: number;
}

/**
 * Issue 13's concurrency acceptance: 50 moderators claim and decide in parallel over the jobs
 * of one queue. Every job is decided exactly once, nobody ever holds a job another holds, no job
 * is lost. The log is the judge: its claims and decisions are counted per job.
 */
describe(`50 moderators over ${JOBS.toLocaleString('en')} jobs`, () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let moderators: Array<{ userId: string; session: Session }>;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['ADMIN'], {
      WARDEN_RATE_LIMIT_PER_SECOND: '100000',
      WARDEN_RATE_LIMIT_BURST: '100000',
    });
    moderators = await signInUsers(world, world.sessions['ADMIN']!, 'MODERATOR', MODERATORS);
    await submitPostsForReview(world, JOBS);
  }, 240_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  const defaultQueue = async (): Promise<QueueSummary> => {
    const response = await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/queues');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { queues: QueueSummary[] };
    return body.queues.find((q) => q.id === 'default')!;
  };

  it('decides every job exactly once with zero double claims and zero lost jobs', async () => {
    await waitFor(async () => (await defaultQueue()).pending === JOBS, { what: `${JOBS} pending jobs`, timeoutMs: 180_000, intervalMs: 250 });

    const decidedBy = new Map<string, string>();
    const refusals: string[] = [];
    const work = async ({ userId, session }: { userId: string; session: Session }) => {
      for (;;) {
        const claim = await world.call(session, 'POST', '/api/console/v1/queues/default/claim');
        if (claim.status === 204) {
          const queue = await defaultQueue();
          if (queue.pending === 0 && queue.locked === 0) return;
          continue;
        }
        expect(claim.status, await claim.clone().text()).toBe(200);
        const { job, lock } = (await claim.json()) as { job: { jobId: string }; lock: { token: string } };
        const decision = await world.call(session, 'POST', `/api/console/v1/jobs/${job.jobId}/decision`, { lockToken: lock.token, type: 'IGNORE' });
        if (decision.status !== 200) {
          refusals.push(`${job.jobId} ${decision.status} ${await decision.text()}`);
          continue;
        }
        if (decidedBy.has(job.jobId)) refusals.push(`${job.jobId} decided twice (${decidedBy.get(job.jobId)} and ${userId})`);
        decidedBy.set(job.jobId, userId);
      }
    };
    await Promise.all(moderators.map(work));

    expect(refusals).toEqual([]);
    expect(decidedBy.size).toBe(JOBS);
    const claims = loggedEvents(world.dataDir, 'ReviewJobClaimed');
    const decisions = loggedEvents(world.dataDir, 'ReviewJobDecided');
    const opened = loggedEvents(world.dataDir, 'ReviewJobOpened');
    expect(opened).toHaveLength(JOBS);
    expect(decisions).toHaveLength(JOBS);
    expect(new Set(decisions.map((d) => d.data['jobId'])).size).toBe(JOBS);
    // No lock expired or was released here, so a job claimed twice would have been held by two.
    const claimsPerJob = new Map<unknown, number>();
    for (const c of claims) claimsPerJob.set(c.data['jobId'], (claimsPerJob.get(c.data['jobId']) ?? 0) + 1);
    expect([...claimsPerJob.values()].filter((n) => n > 1)).toEqual([]);
    expect(claimsPerJob.size).toBe(JOBS);
    // Each decision was taken by the moderator whose claim it followed.
    const claimer = new Map(claims.map((c) => [c.data['jobId'], c.data['moderatorId']]));
    for (const d of decisions) expect((d.data['actor'] as { userId: string }).userId).toBe(claimer.get(d.data['jobId']));
    expect(new Set(decidedBy.values()).size).toBeGreaterThan(MODERATORS / 2);
  }, 600_000);
});
