import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReviewWorld, reviewOrgConfig, signInUsers, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

interface Claimed {
  job: { jobId: string; item: { id: string } };
  lock: { token: string };
}
interface Entry {
  position: number;
  type: string;
  actor: string;
  summary: string;
  data: Record<string, unknown>;
}
interface Page {
  item: { typeId: string; id: string };
  entries: Entry[];
  next: number | null;
  nextAfter: number | null;
}

const APPEALS = (receiverUrl: string) => `
appeals:
  callback: { url: ${receiverUrl}/hooks/appeals }
`;

describe('item and user histories (GET /api/console/v1/items|users/{typeId}/{id}/history)', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let deciderId: string;
  let acceptorId: string;

  const history = (path: string, session = world.sessions['ADMIN']!) => world.call(session, 'GET', `/api/console/v1/${path}`);
  const entries = async (path: string): Promise<Entry[]> => {
    const r = await history(path);
    expect(r.status, await r.clone().text()).toBe(200);
    return ((await r.json()) as Page).entries;
  };
  const claimAndDecide = async (session: ReviewWorld['sessions'][string], queue: string, body: Record<string, unknown>) => {
    const claimed = await waitFor(async () => {
      const r = await world.call(session, 'POST', `/api/console/v1/queues/${queue}/claim`);
      return r.status === 200 ? ((await r.json()) as Claimed) : undefined;
    }, `a job in ${queue}`);
    const decided = await world.call(session, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, { lockToken: claimed.lock.token, ...body });
    expect(decided.status, await decided.clone().text()).toBe(200);
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url, APPEALS(receiver.url)), ['ADMIN', 'MODERATOR']);
    deciderId = world.userIds['ADMIN']!;
    const [second] = await signInUsers(world, world.sessions['ADMIN']!, 'ADMIN', 1, 'second');
    acceptorId = second!.userId;
    const author = { id: 'u-hist', typeId: 'user' };
    const post = (text: string) => ({ id: 'p-hist', typeId: 'post', data: { text, author } });
    expect(
      (await world.api('POST', '/api/v1/items/async', { items: [{ id: 'u-hist', typeId: 'user', data: { name: 'Hist' } }, post('first words')] })).status,
    ).toBe(202);
    expect((await world.api('POST', '/api/v1/items/async', { items: [post('please review me, second version')] })).status).toBe(202);
    await claimAndDecide(world.sessions['ADMIN']!, 'default', { type: 'CUSTOM_ACTION', actionIds: ['remove'], policyIds: ['spam'], reason: 'spam' });
    await waitFor(
      () => receiver.received.find((c) => c.path !== '/hooks/appeals' && (JSON.parse(c.body) as { item: { id: string } }).item.id === 'p-hist'),
      'the remove callback',
    );
    const appealed = await world.api('POST', '/api/v1/report/appeal', {
      appealId: 'ap-hist',
      appealedBy: author,
      appealedAt: new Date().toISOString(),
      actionedItem: post('please review me, second version'),
      actionsTaken: ['remove'],
      appealReason: 'it was fine',
      violatingPolicies: [{ id: 'spam' }],
    });
    expect(appealed.status).toBe(204);
    await claimAndDecide(second!.session, 'appeals', { type: 'ACCEPT_APPEAL', reason: 'overturned' });
    await waitFor(async () => (await entries('users/user/u-hist/history')).some((e) => e.type === 'UserActionsReversed'), 'the reversal in the user history');
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it("tells an item's whole story in log order, explained, with who decided", async () => {
    const story = await entries('items/post/p-hist/history');
    expect(story.map((e) => e.position)).toEqual([...story.map((e) => e.position)].sort((a, b) => a - b));
    const types = story.map((e) => e.type);
    const first = (type: string) => types.indexOf(type);
    for (const type of [
      'ItemSubmitted',
      'ItemEvaluated',
      'ReviewJobOpened',
      'ReviewJobClaimed',
      'ReviewJobDecided',
      'ActionCallbackRequested',
      'CallbackDeliveryRequested',
      'CallbackDelivered',
      'AppealSubmitted',
      'AppealDecided',
    ]) {
      expect(types, type).toContain(type);
    }
    expect(types.filter((t) => t === 'ItemSubmitted')).toHaveLength(2);
    expect(first('ItemSubmitted')).toBeLessThan(first('ItemEvaluated'));
    expect(first('ReviewJobClaimed')).toBeLessThan(first('ReviewJobDecided'));
    expect(first('ReviewJobDecided')).toBeLessThan(first('CallbackDelivered'));
    expect(first('ReviewJobDecided')).toBeLessThan(first('AppealSubmitted'));
    expect(first('AppealSubmitted')).toBeLessThan(first('AppealDecided'));
    const decisions = story.filter((e) => e.type === 'ReviewJobDecided');
    expect(decisions.map((e) => e.actor)).toEqual(expect.arrayContaining([expect.stringContaining(deciderId), expect.stringContaining(acceptorId)]));
    expect(decisions.map((e) => e.summary)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Decided CUSTOM_ACTION/), expect.stringMatching(/^Decided ACCEPT_APPEAL/)]),
    );
    expect(story.find((e) => e.type === 'ItemEvaluated')!.summary).toMatch(/^Evaluated \(LIVE\): \d+ rule\(s\), passed: /);
    expect(story.filter((e) => e.type === 'ItemSubmitted').map((e) => e.summary)).toEqual([
      'Version 0 submitted (through items)',
      'Version 1 submitted (through items)',
    ]);
    // Personal data shows as the job view shows it: opened.
    expect(JSON.stringify(story)).toContain('please review me, second version');
  });

  it("tells a user's story: their user item, what they created, their strikes and the reversal", async () => {
    const story = await entries('users/user/u-hist/history');
    const types = story.map((e) => e.type);
    expect(types).toContain('ItemSubmitted');
    expect(story.filter((e) => e.type === 'ItemSubmitted').map((e) => e.data['itemId'])).toEqual(expect.arrayContaining(['u-hist', 'p-hist']));
    expect(types).toContain('UserStrikesApplied');
    // The action on their post, which moved their score, and the appeal that moved it back.
    expect(types).toContain('ActionCallbackRequested');
    expect(types).toContain('AppealSubmitted');
    expect(types.indexOf('UserStrikesApplied')).toBeLessThan(types.indexOf('UserActionsReversed'));
    expect(story.find((e) => e.type === 'UserActionsReversed')!.summary).toMatch(/^Actions reversed after appeal ap-hist/);
  });

  it('pages with offset and limit, without gaps or repeats', async () => {
    const all = await entries('items/post/p-hist/history?limit=500');
    const seen: number[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const r = await history(`items/post/p-hist/history?limit=3&offset=${offset}`);
      const page = (await r.json()) as Page;
      expect(page.entries.length).toBeLessThanOrEqual(3);
      seen.push(...page.entries.map((e) => e.position));
      offset = page.next;
    }
    expect(seen).toEqual(all.map((e) => e.position));
  });

  it('pages after a log position as well, the same entries, each page a range of the index', async () => {
    const all = await entries('items/post/p-hist/history?limit=500');
    const seen: number[] = [];
    let after: number | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const r = await history(`items/post/p-hist/history?limit=3${after === null ? '' : `&after=${after}`}`);
      const page = (await r.json()) as Page;
      seen.push(...page.entries.map((e) => e.position));
      if (after !== null) expect(page.next).toBeNull();
      if (page.nextAfter === null) break;
      after = page.nextAfter;
    }
    expect(seen).toEqual(all.map((e) => e.position));
    // Past the end: an empty page, not a 404; with an offset too: a 400 pointing at it.
    const past = (await (await history(`items/post/p-hist/history?after=${all.at(-1)!.position}`)).json()) as Page;
    expect(past).toMatchObject({ entries: [], next: null, nextAfter: null });
    const both = await history('items/post/p-hist/history?after=1&offset=3');
    expect(both.status).toBe(400);
    expect(((await both.json()) as { errors: Array<{ pointer?: string }> }).errors.map((e) => e.pointer)).toContain('/after');
  });

  it('answers 403 without VIEW_AUDIT, 404 for what Warden never saw, 400 with a pointer for bad paging', async () => {
    expect((await history('items/post/p-hist/history', world.sessions['MODERATOR']!)).status).toBe(403);
    expect((await history('items/post/never-seen/history')).status).toBe(404);
    const bad = await history('items/post/p-hist/history?limit=0');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: Array<{ pointer?: string }> }).errors.map((e) => e.pointer)).toContain('/limit');
  });
});
