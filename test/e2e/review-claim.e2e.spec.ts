import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { type ReviewWorld, reviewOrgConfig, startReceiver, startReviewWorld } from '../support/review-fixture.js';

/** A rule's ENQUEUE_TO_MRT makes a job; a moderator claims it under an exclusive lock. */
describe('review jobs from rules, claimed over HTTP', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['MODERATOR', 'ADMIN']);
  }, 60_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('a rule-enqueued item becomes one job with source RULE_EXECUTION, and only one moderator holds it', async () => {
    const submitted = await world.api('POST', '/api/v1/items/async', {
      items: [{ id: 'p1', typeId: 'post', data: { text: 'please review me', author: { id: 'u1', typeId: 'user' } } }],
    });
    expect(submitted.status).toBe(202);
    const claimed = await waitFor(async () => {
      const response = await world.call(world.sessions['MODERATOR']!, 'POST', '/api/console/v1/queues/default/claim');
      return response.status === 200 ? ((await response.json()) as { job: Record<string, unknown>; lock: { token: string; expiresAt: string } }) : undefined;
    }, 'a job to claim in the default queue');
    expect(claimed.job).toMatchObject({ queueId: 'default', state: 'LOCKED', source: 'RULE_EXECUTION', item: { id: 'p1', typeId: 'post', typeName: 'Post' } });
    expect(claimed.lock.token.length).toBeGreaterThan(20);
    expect(Date.parse(claimed.lock.expiresAt)).toBeGreaterThan(Date.now());
    const second = await world.call(world.sessions['ADMIN']!, 'POST', '/api/console/v1/queues/default/claim');
    expect(second.status).toBe(204);
  });
});
