import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../support/error-body.js';
import { type ReviewWorld, REVIEW_PASSWORD, reviewOrgConfig, type Session, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, consoleUserCommand, orgWithKeyCommand, runCliBatch } from '../support/warden-process.js';

type Json = Record<string, unknown>;
interface Claimed {
  job: Json & { jobId: string; item: { id: string } };
  lock: { token: string; expiresAt: string };
}
interface QueueSummary {
  id: string;
  pending: number;
  locked: number;
  lockTimeoutSeconds: number;
  order: string;
  oldestPendingAt: string | null;
}

const ROLES = ['MODERATOR', 'CHILD_SAFETY_MODERATOR', 'ADMIN', 'EXTERNAL_MODERATOR', 'MODERATOR_MANAGER'] as const;

/** Helpers over one review world: items that become jobs, claims, and typed answers. */
function helpers(world: () => ReviewWorld) {
  const as = (role: string): Session => world().sessions[role]!;
  const json = async (response: Response, status: number): Promise<Json> => {
    const text = await response.text();
    expect(response.status, text).toBe(status);
    return text === '' ? {} : (JSON.parse(text) as Json);
  };
  /** Submits a post the rules send to review and waits for its job in the managers' list. */
  const newJob = async (itemId: string, text = 'please review me', queueId = 'default'): Promise<string> => {
    const submitted = await world().api('POST', '/api/v1/items/async', {
      items: [{ id: itemId, typeId: 'post', data: { text, author: { id: 'u1', typeId: 'user' } } }],
    });
    expect(submitted.status).toBe(202);
    return waitFor(async () => {
      const page = await json(await world().call(as('ADMIN'), 'GET', `/api/console/v1/jobs?queueId=${queueId}&pageSize=200`), 200);
      return (page['jobs'] as Array<{ jobId: string; item: { id: string } }>).find((j) => j.item.id === itemId)?.jobId;
    }, `the review job of ${itemId} in ${queueId}`);
  };
  const claim = (role: string, queueId = 'default') => world().call(as(role), 'POST', `/api/console/v1/queues/${queueId}/claim`);
  const claimed = async (role: string, queueId = 'default'): Promise<Claimed> => (await json(await claim(role, queueId), 200)) as unknown as Claimed;
  const job = async (role: string, jobId: string) => json(await world().call(as(role), 'GET', `/api/console/v1/jobs/${jobId}`), 200);
  const queues = async (role: string) => (await json(await world().call(as(role), 'GET', '/api/console/v1/queues'), 200))['queues'] as QueueSummary[];
  return { as, json, newJob, claim, claimed, job, queues };
}

describe('review claims and locks over the console API', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let otherAdmin: Session;
  const h = helpers(() => world);

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ROLES);
    // One CLI process for its set-up (test/support/warden-process.ts, runCliBatch).
    await runCliBatch(world.env, [orgWithKeyCommand('other'), consoleUserCommand('other', 'admin@other.example', REVIEW_PASSWORD, ['ADMIN'])]);
    otherAdmin = await consoleLogin(world.warden.url, 'admin@other.example', REVIEW_PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('claim: the job is LOCKED for the claimer and nobody else gets it; renew extends it; release makes it claimable again', async () => {
    const jobId = await h.newJob('c1');
    const mine = await h.claimed('MODERATOR');
    expect(mine.job).toMatchObject({ jobId, state: 'LOCKED', lock: { moderatorId: world.userIds['MODERATOR'], expiresAt: mine.lock.expiresAt } });
    // The token is shown to the claimer only: never in the job view.
    expect(JSON.stringify(await h.job('ADMIN', jobId))).not.toContain(mine.lock.token);
    expect((await h.claim('ADMIN')).status).toBe(204);
    expect((await h.claim('CHILD_SAFETY_MODERATOR')).status).toBe(204);

    const renewed = await h.json(await world.call(h.as('MODERATOR'), 'POST', `/api/console/v1/jobs/${jobId}/lock`, { lockToken: mine.lock.token }), 200);
    expect(Date.parse(renewed['expiresAt'] as string)).toBeGreaterThanOrEqual(Date.parse(mine.lock.expiresAt));
    await expectErrorBody(
      await world.call(h.as('MODERATOR'), 'POST', `/api/console/v1/jobs/${jobId}/lock`, { lockToken: 'not-the-token' }),
      409,
      '/errors/lock-not-held',
    );
    await expectErrorBody(
      await world.call(h.as('ADMIN'), 'POST', `/api/console/v1/jobs/${jobId}/lock`, { lockToken: mine.lock.token }),
      409,
      '/errors/lock-not-held',
    );
    await expectErrorBody(
      await world.call(h.as('MODERATOR'), 'POST', `/api/console/v1/jobs/${jobId}/lock`, { lockToken: 42 }),
      400,
      '/errors/invalid-user-input',
      '/lockToken',
    );
    await expectErrorBody(
      await world.call(h.as('MODERATOR'), 'DELETE', `/api/console/v1/jobs/${jobId}/lock`, {}),
      400,
      '/errors/invalid-user-input',
      '/lockToken',
    );

    // Released with the token in a header; then anyone may claim it.
    const released = await fetch(`${world.warden.url}/api/console/v1/jobs/${jobId}/lock`, {
      method: 'DELETE',
      headers: { cookie: h.as('MODERATOR').cookie, 'x-csrf-token': h.as('MODERATOR').csrfToken, 'x-lock-token': mine.lock.token },
    });
    expect(released.status).toBe(204);
    await expectErrorBody(
      await world.call(h.as('MODERATOR'), 'POST', `/api/console/v1/jobs/${jobId}/lock`, { lockToken: mine.lock.token }),
      409,
      '/errors/lock-not-held',
    );
    const admins = await h.claimed('ADMIN');
    expect(admins.job.jobId).toBe(jobId);
    // Released with the token in the body.
    expect((await world.call(h.as('ADMIN'), 'DELETE', `/api/console/v1/jobs/${jobId}/lock`, { lockToken: admins.lock.token })).status).toBe(204);
    expect((await h.job('ADMIN', jobId))['state']).toBe('PENDING');
  });

  it('skip: the job is not offered to the skipper again, but to another moderator at once', async () => {
    const mine = await h.claimed('MODERATOR');
    const jobId = mine.job.jobId;
    expect((await world.call(h.as('MODERATOR'), 'POST', `/api/console/v1/jobs/${jobId}/skip`, { lockToken: mine.lock.token })).status).toBe(204);
    expect((await h.claim('MODERATOR')).status).toBe(204);
    // Held from here on by the child-safety moderator (a 600 s lock): out of the other tests' way.
    expect((await h.claimed('CHILD_SAFETY_MODERATOR')).job.jobId).toBe(jobId);
    await expectErrorBody(
      await world.call(h.as('MODERATOR'), 'POST', `/api/console/v1/jobs/${jobId}/skip`, { lockToken: mine.lock.token }),
      409,
      '/errors/lock-not-held',
    );
  });

  it('managers take a lock away and assign a job; moderators may not', async () => {
    const jobId = await h.newJob('m1');
    const mine = await h.claimed('MODERATOR');
    expect(mine.job.jobId).toBe(jobId);

    for (const [method, path, body] of [
      ['GET', '/api/console/v1/jobs', undefined],
      ['POST', `/api/console/v1/jobs/${jobId}/release`, undefined],
      ['POST', `/api/console/v1/jobs/${jobId}/assign`, { userId: world.userIds['MODERATOR'] }],
    ] as const) {
      await expectErrorBody(await world.call(h.as('MODERATOR'), method, path, body), 403, '/errors/forbidden');
    }

    expect((await world.call(h.as('MODERATOR_MANAGER'), 'POST', `/api/console/v1/jobs/${jobId}/release`)).status).toBe(204);
    await expectErrorBody(
      await world.call(h.as('MODERATOR'), 'POST', `/api/console/v1/jobs/${jobId}/lock`, { lockToken: mine.lock.token }),
      409,
      '/errors/lock-not-held',
    );
    expect((await h.job('ADMIN', jobId))['state']).toBe('PENDING');

    // Only an active user of the organization who may decide.
    for (const userId of [world.userIds['EXTERNAL_MODERATOR'], 'usr_nobody', 42]) {
      await expectErrorBody(
        await world.call(h.as('MODERATOR_MANAGER'), 'POST', `/api/console/v1/jobs/${jobId}/assign`, { userId }),
        400,
        '/errors/invalid-user-input',
        '/userId',
      );
    }
    expect((await world.call(h.as('MODERATOR_MANAGER'), 'POST', `/api/console/v1/jobs/${jobId}/assign`, { userId: world.userIds['MODERATOR'] })).status).toBe(
      204,
    );
    expect(await h.job('ADMIN', jobId)).toMatchObject({ state: 'ASSIGNED', assignedTo: world.userIds['MODERATOR'] });
    expect((await h.claim('ADMIN')).status).toBe(204);
    expect((await h.claimed('MODERATOR')).job.jobId).toBe(jobId);

    const list = await h.json(await world.call(h.as('MODERATOR_MANAGER'), 'GET', '/api/console/v1/jobs?queueId=default&state=LOCKED&page=1&pageSize=1'), 200);
    expect(list).toMatchObject({ total: 2, page: 1, pageSize: 1 });
    // Oldest first: c1 opened before m1.
    expect((list['jobs'] as Array<{ item: { id: string } }>).map((j) => j.item.id)).toEqual(['c1']);
    await expectErrorBody(await world.call(h.as('ADMIN'), 'GET', '/api/console/v1/jobs?state=BOGUS'), 400, '/errors/invalid-user-input', '/state');
    await expectErrorBody(await world.call(h.as('ADMIN'), 'GET', '/api/console/v1/jobs?page=0'), 400, '/errors/invalid-user-input', '/page');
  });

  it('per role on the real routes: the child-safety queue and another organization', async () => {
    const csJob = await h.newJob('cs1', 'csam-test', 'child-safety');
    const ids = (queues: QueueSummary[]) => queues.map((q) => q.id).sort();
    expect(ids(await h.queues('MODERATOR'))).toEqual(['appeals', 'default', 'spam']);
    expect(ids(await h.queues('EXTERNAL_MODERATOR'))).toEqual(['appeals', 'default', 'spam']);
    expect(ids(await h.queues('CHILD_SAFETY_MODERATOR'))).toEqual(['appeals', 'child-safety', 'default', 'spam']);
    const adminView = await h.queues('ADMIN');
    expect(ids(adminView)).toEqual(['appeals', 'child-safety', 'default', 'spam']);
    expect(adminView.find((q) => q.id === 'default')).toMatchObject({ locked: 2, pending: 0, lockTimeoutSeconds: 600, order: 'FIFO', oldestPendingAt: null });
    expect(adminView.find((q) => q.id === 'spam')).toMatchObject({ order: 'PRIORITY', pending: 0 });
    expect(adminView.find((q) => q.id === 'child-safety')).toMatchObject({ pending: 1, locked: 0, oldestPendingAt: expect.any(String) });

    await expectErrorBody(await h.claim('MODERATOR', 'child-safety'), 404, '/errors/not-found');
    await expectErrorBody(await world.call(h.as('MODERATOR'), 'GET', `/api/console/v1/jobs/${csJob}`), 404, '/errors/not-found');
    await expectErrorBody(await world.call(h.as('MODERATOR'), 'POST', `/api/console/v1/jobs/${csJob}/lock`, { lockToken: 'x' }), 404, '/errors/not-found');
    await expectErrorBody(await h.claim('EXTERNAL_MODERATOR'), 403, '/errors/forbidden');

    const cs = await h.claimed('CHILD_SAFETY_MODERATOR', 'child-safety');
    expect(cs.job).toMatchObject({ jobId: csJob, queueId: 'child-safety', state: 'LOCKED' });
    expect((await h.job('ADMIN', csJob))['state']).toBe('LOCKED');

    // Another organization's admin: every job route is a 404, as if the job did not exist.
    for (const [method, path, body] of [
      ['GET', `/api/console/v1/jobs/${csJob}`, undefined],
      ['POST', `/api/console/v1/jobs/${csJob}/release`, undefined],
      ['POST', `/api/console/v1/jobs/${csJob}/lock`, { lockToken: cs.lock.token }],
      ['DELETE', `/api/console/v1/jobs/${csJob}/lock`, { lockToken: cs.lock.token }],
      ['POST', `/api/console/v1/jobs/${csJob}/skip`, { lockToken: cs.lock.token }],
    ] as const) {
      await expectErrorBody(await world.call(otherAdmin, method, path, body), 404, '/errors/not-found');
    }
    // Its own queues (the built-in ones) show none of this organization's jobs.
    const otherQueues = (await h.json(await world.call(otherAdmin, 'GET', '/api/console/v1/queues'), 200))['queues'] as QueueSummary[];
    expect(otherQueues.map((q) => [q.id, q.pending, q.locked])).toEqual([
      ['default', 0, 0],
      ['child-safety', 0, 0],
    ]);
    expect((await h.job('ADMIN', csJob))['state']).toBe('LOCKED');
  });
});

describe('an expired lock, over the console API', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const h = helpers(() => world);

  beforeAll(async () => {
    receiver = await startReceiver();
    // The default queue's locks last one second here.
    const config = reviewOrgConfig(receiver.url).replace('lockTimeoutSeconds: 600', 'lockTimeoutSeconds: 1');
    world = await startReviewWorld(config, ['MODERATOR', 'ADMIN']);
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('can be claimed by another moderator, and its former holder can no longer renew it', async () => {
    const jobId = await h.newJob('e1');
    const mine = await h.claimed('MODERATOR');
    expect(mine.job.jobId).toBe(jobId);
    const theirs = await waitFor(async () => {
      const response = await h.claim('ADMIN');
      return response.status === 200 ? ((await response.json()) as Claimed) : undefined;
    }, 'the expired job to be offered to another moderator');
    expect(theirs.job.jobId).toBe(jobId);
    const renew = await world.call(h.as('MODERATOR'), 'POST', `/api/console/v1/jobs/${jobId}/lock`, { lockToken: mine.lock.token });
    expect(renew.status).toBe(409);
    const body = (await renew.json()) as { errors: Array<{ type: string[] }> };
    expect(['/errors/lock-not-held', '/errors/lock-expired']).toContain(body.errors[0]!.type[0]);
  });
});

describe("the managers' job list by age", () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const h = helpers(() => world);

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['ADMIN']);
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('lists only the jobs opened before a time, counted and paged on the server; a bad time is a 400 at its pointer', async () => {
    const list = async (query: string) => h.json(await world.call(h.as('ADMIN'), 'GET', `/api/console/v1/jobs?queueId=default&${query}`), 200);
    const items = (page: Json) => (page['jobs'] as Array<{ item: { id: string }; openedAt: string }>).map((j) => j.item.id);
    await h.newJob('aged-1');
    await h.newJob('aged-2');
    const second = (await list('pageSize=10'))['jobs'] as Array<{ item: { id: string }; openedAt: string }>;
    // Just after the second job opened; the third opens later (it is submitted only now).
    const cut = new Date(Date.parse(second.find((j) => j.item.id === 'aged-2')!.openedAt) + 1);
    await h.newJob('fresh-1');

    const before = `openedBefore=${encodeURIComponent(cut.toISOString())}`;
    expect(await list(`${before}&pageSize=1`)).toMatchObject({ total: 2, page: 1, pageSize: 1 });
    expect(items(await list(`${before}&pageSize=1`))).toEqual(['aged-1']);
    expect(items(await list(`${before}&pageSize=1&page=2`))).toEqual(['aged-2']);
    // The same instant written with an offset selects the same jobs.
    const shifted = new Date(cut.getTime() + 3_600_000).toISOString().replace('.', ',').replace('Z', '+01');
    expect(items(await list(`openedBefore=${encodeURIComponent(shifted)}`))).toEqual(['aged-1', 'aged-2']);
    expect(items(await list('pageSize=10'))).toEqual(['aged-1', 'aged-2', 'fresh-1']);
    expect(await list(`openedBefore=${encodeURIComponent('2000-01-01T00:00:00Z')}`)).toMatchObject({ total: 0, jobs: [] });
    await expectErrorBody(
      await world.call(h.as('ADMIN'), 'GET', '/api/console/v1/jobs?queueId=default&openedBefore=yesterday'),
      400,
      '/errors/invalid-user-input',
      '/openedBefore',
    );
  });
});
