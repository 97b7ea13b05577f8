import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents } from '../support/config-files.js';
import { waitFor } from '../support/wait-for.js';
import { type ReviewWorld, reviewOrgConfigWithPillSpam, startReceiver, startReviewWorld } from '../support/review-fixture.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the job view's JSON, read by path
type Json = Record<string, any>;

/** Issue 13 item 7: the enriched job view, as the claim route returns it. */
describe('the review job view (e2e)', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfigWithPillSpam(receiver.url), ['MODERATOR', 'ADMIN']);
  }, 90_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  const submit = async (items: unknown[]) => {
    const response = await world.api('POST', '/api/v1/items/async', { items });
    expect(response.status, await response.clone().text()).toBe(202);
  };

  it('shows the item unsealed, its type with roles, the creator, the rule explanation, related items and the lock', async () => {
    await submit([{ id: 'u1', typeId: 'user', data: { name: 'Alice' } }]);
    const post = {
      text: 'please review me',
      author: { id: 'u1', typeId: 'user' },
      images: [`${receiver.url}/img/cat.png`],
      createdAt: '2025-01-02T03:04:05.000Z',
    };
    await submit([{ id: 'p1', typeId: 'post', data: post }]);
    // The evaluation's index is built in the background: the view shows what it has once it is.
    await waitFor(async () => {
      const response = await world.api('GET', '/api/v1/items/post/p1/evaluations');
      const body = response.status === 200 ? ((await response.json()) as Json) : undefined;
      return JSON.stringify(body ?? {}).includes('to-review') ? body : undefined;
    }, 'the evaluation of p1');
    const claimed = await waitFor(async () => {
      const response = await world.call(world.sessions['MODERATOR']!, 'POST', '/api/console/v1/queues/default/claim');
      return response.status === 200 ? ((await response.json()) as { job: Json; lock: { token: string; expiresAt: string } }) : undefined;
    }, 'a job to claim');
    const job = claimed.job;

    expect(job).toMatchObject({
      queueId: 'default',
      state: 'LOCKED',
      source: 'RULE_EXECUTION',
      sources: ['RULE_EXECUTION'],
      reportCount: 0,
      reports: [],
      thread: [],
      additionalItems: [],
      assignedTo: null,
      decision: null,
      policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
      item: { id: 'p1', typeId: 'post', typeName: 'Post', version: 0, latestVersion: 0, data: post, creator: { id: 'u1', typeId: 'user' } },
    });
    expect(job['lock']).toEqual({ moderatorId: world.userIds['MODERATOR'], expiresAt: claimed.lock.expiresAt });
    expect(JSON.stringify(job)).not.toContain(claimed.lock.token);

    expect(job['itemType']).toMatchObject({ id: 'post', name: 'Post', kind: 'CONTENT' });
    const fields = Object.fromEntries((job['itemType'].fields as Json[]).map((f) => [f['name'], f]));
    expect(fields['author']).toMatchObject({ type: 'RELATED_ITEM', roles: ['creator'], itemTypeIds: ['user'] });
    expect(fields['createdAt']).toMatchObject({ type: 'DATETIME', roles: ['createdAt'] });
    expect(fields['images']).toMatchObject({ type: 'IMAGE', array: true, roles: [] });

    expect(job['creator']).toEqual({
      item: { id: 'u1', typeId: 'user' },
      user: { id: 'u1', typeId: 'user', typeName: 'User', version: 0, typeVersion: null, data: { name: 'Alice' } },
      // No action against Alice yet: the best score, no strikes.
      userScore: 5,
      strikeCount: 0,
    });
    expect(job['relatedItems']).toEqual([
      { field: 'author', id: 'u1', typeId: 'user', typeName: 'User', version: 0, typeVersion: null, data: { name: 'Alice' } },
    ]);

    expect(job['evaluations']).toHaveLength(1);
    const evaluation = job['evaluations'][0] as Json;
    expect(evaluation).toMatchObject({ version: 0, environment: 'LIVE', actionId: 'enqueue-to-mrt' });
    expect(evaluation['rules']).toEqual([
      expect.objectContaining({
        id: 'to-review',
        name: 'To review',
        outcome: 'passed',
        conditions: expect.arrayContaining([expect.objectContaining({ outcome: 'passed' })]),
      }),
    ]);
    expect(job['hashMatches']).toEqual([]);
    expect(job['history']).toEqual({ item: [], creator: [] });
  });

  it("names a creator Warden has no user item of without one, and lists the item's other jobs only in queues the viewer may see", async () => {
    // Both rules match: one job in the default queue, one in child-safety.
    await submit([{ id: 'p2', typeId: 'post', data: { text: 'review me csam-test', author: { id: 'u2', typeId: 'user' } } }]);
    const claim = (role: string) =>
      waitFor(async () => {
        const response = await world.call(world.sessions[role]!, 'POST', '/api/console/v1/queues/default/claim');
        return response.status === 200 ? ((await response.json()) as { job: Json }) : undefined;
      }, `the job of p2 for ${role}`);
    const seenByAdmin = await waitFor(async () => {
      const response = await world.call(world.sessions['ADMIN']!, 'POST', '/api/console/v1/queues/child-safety/claim');
      return response.status === 200 ? ((await response.json()) as { job: Json }) : undefined;
    }, 'the child-safety job of p2');
    expect(seenByAdmin.job).toMatchObject({ queueId: 'child-safety', item: { id: 'p2' }, creator: { item: { id: 'u2', typeId: 'user' }, user: null } });
    // The ADMIN sees the default-queue job in the child-safety job's history.
    expect(seenByAdmin.job['history']['item']).toEqual([
      expect.objectContaining({ queueId: 'default', item: { id: 'p2', typeId: 'post' }, state: 'PENDING', decision: null }),
    ]);
    const seenByModerator = await claim('MODERATOR');
    expect(seenByModerator.job).toMatchObject({ item: { id: 'p2' } });
    expect(seenByModerator.job['history']).toEqual({ item: [], creator: [] });
  });

  // Issue 30 item 16: a reported post the live rule had already removed showed no evaluation, no action.
  it("shows on a report-made job what Warden already did: the rule that fired, the published action and its delivery, the creator's recent actions", async () => {
    const post = { text: 'buy cheap pills here', author: { id: 'u3', typeId: 'user' } };
    await submit([{ id: 'u3', typeId: 'user', data: { name: 'Carol' } }]);
    await submit([{ id: 'p3', typeId: 'post', data: post }]);
    await waitFor(() => receiver.received.find((c) => c.path === '/hooks/remove' && c.body.includes('"p3"')), 'the remove callback of p3');
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'r9', typeId: 'user' },
      reportedAt: '2026-11-23T12:00:00Z',
      reportedItem: { id: 'p3', typeId: 'post', data: post },
      reportedForReason: { policyId: 'spam', reason: 'spam' },
    });
    expect(reported.status, await reported.clone().text()).toBe(201);
    const jobId = await waitFor(
      () => loggedEvents(world.dataDir, 'ReviewJobOpened').find((e) => (e.data['item'] as { id: string }).id === 'p3')?.data['jobId'] as string | undefined,
      'the job of the report on p3',
    );
    // The creator's actions come from the audit trail's index, which is built in the background;
    // the evaluations from the evaluations' index, also built in the background: version 1's (the
    // report's resubmission, evaluated apart from the job's opening) is there only once indexed.
    const job = await waitFor(async () => {
      const response = await world.call(world.sessions['MODERATOR']!, 'GET', `/api/console/v1/jobs/${jobId}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Json;
      return body['actions']?.['creator']?.length > 0 && body['evaluations']?.length >= 2 ? body : undefined;
    }, "the creator's actions and both versions' evaluations in the job view");

    expect(job).toMatchObject({ source: 'REPORT', reportCount: 1, item: { id: 'p3', typeId: 'post', data: post } });
    // The report sent the post again (version 1, same content): evaluated again, newest first.
    expect(job['evaluations'].map((e: Json) => e['version'])).toEqual([1, 0]);
    expect(job['evaluations'][1]).toEqual(
      expect.objectContaining({
        version: 0,
        environment: 'LIVE',
        actionId: null,
        actions: ['remove'],
        rules: [
          expect.objectContaining({
            id: 'pills',
            name: 'Pill spam',
            outcome: 'passed',
            conditions: [expect.objectContaining({ outcome: 'passed' })],
          }),
        ],
      }),
    );
    const removal = {
      item: { id: 'p3', typeId: 'post' },
      actionId: 'remove',
      actionName: 'Remove',
      trigger: 'rule',
      policies: [{ id: 'spam', name: 'Spam' }],
      rules: [{ id: 'pills', name: 'Pill spam' }],
      delivery: { status: 'delivered', attempts: 1, deliveredAt: expect.any(String), deadLetteredAt: null },
    };
    expect(job['actions']['item']).toEqual([expect.objectContaining(removal)]);
    expect(job['actions']['creator']).toEqual([expect.objectContaining({ ...removal, deliveryId: job['actions']['item'][0]['deliveryId'] })]);
    // No earlier review job of the item or of Carol: what was done is under actions.
    expect(job['history']).toEqual({ item: [], creator: [] });
  });
});
