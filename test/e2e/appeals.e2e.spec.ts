import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount, loggedEvents, rawLog } from '../support/config-files.js';
import { type ReviewWorld, reviewOrgConfig, type Session, signInUsers, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

interface Claimed {
  job: { jobId: string; queueId: string; item: { id: string } };
  lock: { token: string; expiresAt: string };
}
interface ErrorBody {
  errors: Array<{ status: number; type: string[]; pointer?: string; detail?: string }>;
}
interface JobList {
  jobs: Array<{ jobId: string; queueId: string; item: { id: string } }>;
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Appeals whose actioned post says "appeal-to-spam" go to the spam queue; decisions go to /hooks/appeals. */
const appealsConfig = (receiverUrl: string) => `
appeals:
  callback: { url: ${receiverUrl}/hooks/appeals }
  body: { source: warden }
appealRoutingRules:
  - id: spam-appeals
    name: Spam appeals
    queueId: spam
    itemTypeIds: [post]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: ["appeal-to-spam"] } }, comparator: EQUALS, value: true }
`;

const appealBody = (appealId: string, itemId: string, overrides: Record<string, unknown> = {}) => ({
  appealId,
  appealedBy: { id: `author-of-${itemId}`, typeId: 'user' },
  appealedAt: '2026-03-02T09:30:00Z',
  actionedItem: { id: itemId, typeId: 'post', data: { text: 'please review me', author: { id: `author-of-${itemId}`, typeId: 'user' } } },
  actionsTaken: ['remove'],
  appealReason: 'it was satire, my secret reason',
  violatingPolicies: [{ id: 'spam' }],
  ...overrides,
});

const appealCallbacks = (receiver: Receiver, appealId: string) =>
  receiver.received.filter((c) => c.path === '/hooks/appeals' && (JSON.parse(c.body) as { appealId: string }).appealId === appealId);

const appealOpenedFor = (world: ReviewWorld, appealId: string) =>
  loggedEvents(world.dataDir, 'ReviewJobOpened').filter((e) => (e.data['request'] as { appeal?: { appealId: string } }).appeal?.appealId === appealId);

describe('appeals over HTTP', () => {
  let world: ReviewWorld;
  let receiver: Receiver;
  let other: Session;
  let otherId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url, appealsConfig(receiver.url)), ['MODERATOR', 'ADMIN']);
    const [second] = await signInUsers(world, world.sessions['ADMIN']!, 'MODERATOR', 1, 'second');
    other = second!.session;
    otherId = second!.userId;
  }, 90_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  /** A moderator decision that removes the post: its action callback is what the platform appeals. */
  async function removeByModerator(itemId: string, text = 'please review me'): Promise<void> {
    const moderator = world.sessions['MODERATOR']!;
    const submitted = await world.api('POST', '/api/v1/items/async', {
      items: [{ id: itemId, typeId: 'post', data: { text, author: { id: `author-of-${itemId}`, typeId: 'user' } } }],
    });
    expect(submitted.status).toBe(202);
    const claimed = await waitFor(async () => {
      const r = await world.call(moderator, 'POST', '/api/console/v1/queues/default/claim');
      return r.status === 200 ? ((await r.json()) as Claimed) : undefined;
    }, 'the post in the default queue');
    expect(claimed.job.item.id).toBe(itemId);
    const decided = await world.call(moderator, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, {
      lockToken: claimed.lock.token,
      type: 'CUSTOM_ACTION',
      actionIds: ['remove'],
      policyIds: ['spam'],
      reason: 'spam',
    });
    expect(decided.status).toBe(200);
    await waitFor(() => receiver.received.find((c) => (JSON.parse(c.body) as { item: { id: string } }).item.id === itemId), 'the action callback');
  }

  /** The job's creator as the job view shows them: live score and strike count. */
  const standing = async (jobId: string) => {
    const r = await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/jobs/${jobId}`);
    expect(r.status).toBe(200);
    return ((await r.json()) as { creator: { userScore: number | null; strikeCount: number | null } }).creator;
  };

  const score = async (userId: string) => {
    const r = await world.api('GET', `/api/v1/user_scores?id=${userId}&typeId=user`);
    expect(r.status).toBe(200);
    return (await r.json()) as number;
  };

  /** The appeals queue as the managers' list shows it (the read model claims are proposed from). */
  const listed = async (queueId: string, itemId: string) => {
    const r = await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/jobs?queueId=${queueId}&state=PENDING`);
    expect(r.status).toBe(200);
    return ((await r.json()) as JobList).jobs.find((j) => j.item.id === itemId);
  };

  it('an appeal of a moderator decision: 204, one job in the appeals queue however often it is sent, offered to another moderator only', async () => {
    await removeByModerator('p-appealed');
    const first = await world.api('POST', '/api/v1/report/appeal', appealBody('ap-1', 'p-appealed'));
    expect(first.status).toBe(204);
    expect(await first.text()).toBe('');
    // The same appeal id again, once as sent and once with another body: accepted, and the first stands.
    expect((await world.api('POST', '/api/v1/report/appeal', appealBody('ap-1', 'p-appealed'))).status).toBe(204);
    expect((await world.api('POST', '/api/v1/report/appeal', appealBody('ap-1', 'p-appealed', { appealReason: 'changed my mind' }))).status).toBe(204);

    const job = await waitFor(() => listed('appeals', 'p-appealed'), 'the appeal job in the appeals queue');
    expect(loggedEvents(world.dataDir, 'AppealSubmitted')).toHaveLength(1);
    expect(appealOpenedFor(world, 'ap-1')).toHaveLength(1);
    const request = appealOpenedFor(world, 'ap-1')[0]!.data['request'] as Record<string, unknown>;
    expect(request['appeal']).toEqual({
      appealId: 'ap-1',
      actionsTaken: ['remove'],
      violatingPolicyIds: ['spam'],
      excludedModerators: [world.userIds['MODERATOR']],
    });
    // What the appellant wrote is sealed in the log.
    expect(rawLog(world.dataDir)).not.toContain('my secret reason');

    // The moderator who removed the post is not offered its appeal; another moderator is.
    const mine = await world.call(world.sessions['MODERATOR']!, 'POST', '/api/console/v1/queues/appeals/claim');
    expect(mine.status).toBe(204);
    const theirs = await world.call(other, 'POST', '/api/console/v1/queues/appeals/claim');
    expect(theirs.status).toBe(200);
    const claimed = (await theirs.json()) as Claimed;
    expect(claimed.job).toMatchObject({ jobId: job.jobId, queueId: 'appeals', item: { id: 'p-appealed' } });
    expect(loggedEvents(world.dataDir, 'ReviewJobClaimed').find((e) => e.data['jobId'] === job.jobId)?.data['moderatorId']).toBe(otherId);

    // An appeal job takes the appeal's outcome only.
    const ignored = await world.call(other, 'POST', `/api/console/v1/jobs/${job.jobId}/decision`, { lockToken: claimed.lock.token, type: 'IGNORE' });
    expect(ignored.status).toBe(400);
    expect(((await ignored.json()) as ErrorBody).errors.map((e) => e.pointer)).toEqual(['/type']);

    // The removal struck its author once (spam: 1 strike) and cost them their score (4 points on 1 submission).
    await waitFor(async () => (await standing(job.jobId)).strikeCount === 1 || undefined, "the removal's strike");
    // The strike count is the user's strikes stream; the score is the user-scores read model, which
    // follows the log on its own (another thread), not in step with the strikes.
    await waitFor(async () => (await score('author-of-p-appealed')) === 1 || undefined, "the removal's score");
    expect(await score('author-of-p-appealed')).toBe(1);

    const accepted = await world.call(other, 'POST', `/api/console/v1/jobs/${job.jobId}/decision`, { lockToken: claimed.lock.token, type: 'ACCEPT_APPEAL' });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ jobId: job.jobId, type: 'ACCEPT_APPEAL', deliveryIds: [] });

    const [callback] = await waitFor(
      () => (appealCallbacks(receiver, 'ap-1').length > 0 ? appealCallbacks(receiver, 'ap-1') : undefined),
      'the appeal decision callback',
    );
    expect(callback!.headers['service-signature']).toMatch(/^t=\d+,kid=[\w-]+,v1=/);
    expect(JSON.parse(callback!.body)).toEqual({
      appealId: 'ap-1',
      item: { id: 'p-appealed', typeId: 'post', typeName: 'Post' },
      appealedBy: { id: 'author-of-p-appealed', typeId: 'user' },
      appealDecision: 'ACCEPT',
      custom: { source: 'warden' },
    });
    const decided = await waitFor(() => loggedEvents(world.dataDir, 'AppealDecided').find((e) => e.data['appealId'] === 'ap-1'), 'AppealDecided');
    expect(decided.data).toMatchObject({ appealId: 'ap-1', decision: 'ACCEPT', jobId: job.jobId, decidedBy: { userId: otherId } });

    // Accepted: the appealed removal's strike is gone from the count and its penalty from the score.
    await waitFor(async () => (await standing(job.jobId)).strikeCount === 0 || undefined, 'the strike reversed');
    await waitFor(async () => (await score('author-of-p-appealed')) === 5 || undefined, 'the score restored');
    expect(loggedEvents(world.dataDir, 'UserActionsReversed').map((e) => e.data)).toEqual([
      expect.objectContaining({ appealId: 'ap-1', item: { id: 'p-appealed', typeId: 'post' }, actionIds: ['remove'], strikes: 1, countAfter: 0 }),
    ]);
  });

  it('appeal routing rules pick the queue: the first that passes', async () => {
    const text = 'appeal-to-spam please';
    const sent = await world.api(
      'POST',
      '/api/v1/report/appeal',
      appealBody('ap-routed', 'p-routed', {
        actionedItem: { id: 'p-routed', typeId: 'post', data: { text } },
      }),
    );
    expect(sent.status).toBe(204);
    const opened = await waitFor(() => appealOpenedFor(world, 'ap-routed')[0], 'the routed appeal job');
    expect(opened.data['queueId']).toBe('spam');
    expect((opened.data['request'] as Record<string, unknown>)['routedBy']).toEqual({ id: 'spam-appeals', name: 'Spam appeals' });
  });

  it('an appeal of an item Warden never decided on goes to the appeals queue, offered to anyone', async () => {
    expect((await world.api('POST', '/api/v1/report/appeal', appealBody('ap-unknown', 'p-never-seen'))).status).toBe(204);
    const opened = await waitFor(() => appealOpenedFor(world, 'ap-unknown')[0], 'the appeal job');
    expect(opened.data['queueId']).toBe('appeals');
    expect((opened.data['request'] as { appeal: { excludedModerators: string[] } }).appeal.excludedModerators).toEqual([]);

    // Its job may be claimed by the moderator of the other appeal; they reject it.
    const moderator = world.sessions['MODERATOR']!;
    const claimed = await waitFor(async () => {
      const r = await world.call(moderator, 'POST', '/api/console/v1/queues/appeals/claim');
      return r.status === 200 ? ((await r.json()) as Claimed) : undefined;
    }, 'the appeal job to claim');
    expect(claimed.job).toMatchObject({ jobId: opened.data['jobId'], item: { id: 'p-never-seen' } });
    const rejected = await world.call(moderator, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, {
      lockToken: claimed.lock.token,
      type: 'REJECT_APPEAL',
    });
    expect(rejected.status).toBe(200);
    const [callback] = await waitFor(
      () => (appealCallbacks(receiver, 'ap-unknown').length > 0 ? appealCallbacks(receiver, 'ap-unknown') : undefined),
      'the REJECT callback',
    );
    expect(JSON.parse(callback!.body)).toMatchObject({ appealId: 'ap-unknown', appealDecision: 'REJECT', custom: { source: 'warden' } });
  });

  it('ACCEPT_APPEAL and REJECT_APPEAL on a job that is no appeal: 400 at /type', async () => {
    const moderator = world.sessions['MODERATOR']!;
    const submitted = await world.api('POST', '/api/v1/items/async', {
      items: [{ id: 'p-plain', typeId: 'post', data: { text: 'please review me', author: { id: 'author-of-p-plain', typeId: 'user' } } }],
    });
    expect(submitted.status).toBe(202);
    const claimed = await waitFor(async () => {
      const r = await world.call(moderator, 'POST', '/api/console/v1/queues/default/claim');
      return r.status === 200 ? ((await r.json()) as Claimed) : undefined;
    }, 'the plain job');
    for (const type of ['ACCEPT_APPEAL', 'REJECT_APPEAL']) {
      const r = await world.call(moderator, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, { lockToken: claimed.lock.token, type });
      expect(r.status).toBe(400);
      expect(((await r.json()) as ErrorBody).errors.map((e) => e.pointer)).toEqual(['/type']);
    }
  });

  it('400 names every problem with its pointer and records nothing', async () => {
    const before = eventCount(world.dataDir, "type = 'AppealSubmitted'");
    const empty = await world.api('POST', '/api/v1/report/appeal', {});
    expect(empty.status).toBe(400);
    const emptyBody = (await empty.json()) as ErrorBody;
    expect(emptyBody.errors.map((e) => e.pointer).sort()).toEqual(['/actionedItem', '/actionsTaken', '/appealId', '/appealedAt', '/appealedBy']);
    expect(emptyBody.errors.every((e) => e.status === 400 && e.type[0] === '/errors/invalid-user-input')).toBe(true);

    const bad = await world.api('POST', '/api/v1/report/appeal', {
      appealId: 'bad\nid',
      appealedBy: { id: 'u1', typeId: 'post' },
      appealedAt: 'yesterday',
      actionedItem: { id: 'p1', typeId: 'nope', data: {} },
      actionsTaken: ['remove', 7],
      appealReason: 42,
      violatingPolicies: [{ id: 'no-such-policy' }, 'spam'],
      additionalItems: [{ id: 'c1', typeId: 'post', data: { text: 5 } }],
    });
    expect(bad.status).toBe(400);
    const pointers = ((await bad.json()) as ErrorBody).errors.map((e) => e.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        '/appealId',
        '/appealedBy/typeId',
        '/appealedAt',
        '/actionedItem/typeId',
        '/actionsTaken/1',
        '/appealReason',
        '/violatingPolicies/0/id',
        '/violatingPolicies/1',
        '/additionalItems/0/data/text',
      ]),
    );
    expect((await world.api('POST', '/api/v1/report/appeal', appealBody('ap-x', 'p1', { actionsTaken: [] }))).status).toBe(400);
    const long = await world.api('POST', '/api/v1/report/appeal', appealBody('ap-long', 'p1', { appealReason: 'x'.repeat(5_001) }));
    expect(long.status).toBe(400);
    expect(((await long.json()) as ErrorBody).errors.map((e) => [e.pointer, e.detail])).toEqual([['/appealReason', 'at most 5000 characters']]);
    expect(eventCount(world.dataDir, "type = 'AppealSubmitted'")).toBe(before);
  });

  it('401 without an API key', async () => {
    const r = await fetch(`${world.warden.url}/api/v1/report/appeal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(appealBody('ap-nokey', 'p1')),
    });
    expect(r.status).toBe(401);
  });
});
