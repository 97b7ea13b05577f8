import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents, writeConfig } from '../support/config-files.js';
import { type ReviewWorld, reviewOrgConfig, reviewOrgConfigWithPillSpam, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { runCliBatch } from '../support/warden-process.js';

interface Claimed {
  job: { jobId: string; item: { id: string } };
  lock: { token: string };
}
interface ItemPage {
  item: { typeId: string; id: string };
  personalData: boolean;
  creator: { typeId: string; id: string } | null;
  versions: { entries: Array<{ version: number; source: string; typeVersion: string | null; data: Record<string, unknown> | null }>; next: number | null };
  evaluations: Array<{ version: number; rules: Array<{ id: string; outcome: string; conditions: Array<{ path: string; outcome: string }> }> }>;
  actions: Array<{ actionId: string; trigger: string; actor: string; deliveryId: string; delivery: { state: string } | null }>;
  reports: Array<{ reportId: string; reporter: { id: string } | null; reason: string | null; opened: boolean }>;
  jobs: Array<{ jobId: string; decisions: Array<{ type: string; moderator: string | null; reason: string | null }> }>;
  thread: Array<{ id: string; reported: boolean }>;
  timeline: { entries: Array<{ position: number; type: string; actor: string }> };
  creatorStanding: {
    user: { typeId: string; id: string };
    score: number;
    strikes: { count: number; entries: unknown[] };
    recentItems: Array<{ id: string }>;
  } | null;
}
interface ErrorBody {
  errors: Array<{ status: number; title: string; pointer?: string }>;
}

/**
 * Issue 34, item 1: Investigate over the API for a real flow: a post removed by a LIVE rule, then
 * reported (with its thread) and decided by a moderator. The item page tells every step in log
 * order with its actor; another organization's ids are 404; each page answered is recorded in the
 * access audit; bad ids get the standard error body with a pointer.
 */
describe('Investigate (GET /api/console/v1/investigate/…)', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let reportId: string;
  let jobId: string;
  let otherKey: string;
  let otherReportId: string;
  const author = { id: 'u-inv', typeId: 'user' };

  const get = (path: string, role = 'ADMIN') => world.call(world.sessions[role]!, 'GET', `/api/console/v1/investigate/${path}`);
  const json = async <T>(response: Response, status = 200): Promise<T> => {
    expect(response.status, await response.clone().text()).toBe(status);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfigWithPillSpam(receiver.url), ['ADMIN', 'MODERATOR', 'AUDITOR', 'MODERATOR_MANAGER']);
    const post = { id: 'p-inv', typeId: 'post', data: { text: 'cheap pills here', author } };
    expect((await world.api('POST', '/api/v1/items/async', { items: [{ ...author, data: { name: 'Inv' } }, post] })).status).toBe(202);
    await waitFor(() => receiver.received.find((c) => c.path === '/hooks/remove' && c.body.includes('p-inv')), "the rule's remove callback");
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'r-inv', typeId: 'user' },
      reportedAt: new Date().toISOString(),
      reportedItem: post,
      reportedForReason: { reason: 'selling pills' },
      reportedItemThread: [
        { id: 'p-before', typeId: 'post', data: { text: 'earlier' } },
        { id: 'p-inv', typeId: 'post', data: { text: 'cheap pills here' } },
      ],
      reportedItemsInThread: [{ id: 'p-inv', typeId: 'post' }],
    });
    reportId = (await json<{ reportId: string }>(reported, 201)).reportId;
    const claimed = await waitFor(async () => {
      const r = await world.call(world.sessions['ADMIN']!, 'POST', '/api/console/v1/queues/default/claim');
      return r.status === 200 ? ((await r.json()) as Claimed) : undefined;
    }, 'the report in the default queue');
    jobId = claimed.job.jobId;
    const decided = await world.call(world.sessions['ADMIN']!, 'POST', `/api/console/v1/jobs/${jobId}/decision`, {
      lockToken: claimed.lock.token,
      type: 'CUSTOM_ACTION',
      actionIds: ['remove'],
      policyIds: ['spam'],
      reason: 'pill spam, confirmed',
    });
    expect(decided.status, await decided.clone().text()).toBe(200);
    await waitFor(() => receiver.received.filter((c) => c.path === '/hooks/remove' && c.body.includes('p-inv')).length >= 2, "the decision's remove callback");
    // Another organization, configured alike, with an item and a report of its own.
    // One CLI process for its set-up (test/support/warden-process.ts, runCliBatch).
    const [, otherMade] = await runCliBatch(world.env, [
      ['apply', writeConfig(reviewOrgConfig(receiver.url).replace('id: rev, name: Review Org', 'id: inv-other, name: Other Org'))],
      ['api-key', 'create', '--org', 'inv-other'],
    ]);
    otherKey = otherMade!.at(-1)!;
    const other = (path: string, body: unknown) =>
      fetch(`${world.warden.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': otherKey },
        body: JSON.stringify(body),
      });
    const secret = { id: 'p-secret', typeId: 'post', data: { text: 'theirs', author: { id: 'u-secret', typeId: 'user' } } };
    expect((await other('/api/v1/items/async', { items: [secret] })).status).toBe(202);
    const otherReport = await other('/api/v1/report', {
      reporter: { kind: 'user', id: 'r-x', typeId: 'user' },
      reportedAt: new Date().toISOString(),
      reportedItem: secret,
    });
    otherReportId = (await json<{ reportId: string }>(otherReport, 201)).reportId;
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it("shows an item's versions, evaluation, actions with delivery states, report, job and decision, and every step in order with its actor", async () => {
    const page = await waitFor(async () => {
      const p = await json<ItemPage>(await get('items/post/p-inv'));
      return p.actions.length >= 2 && p.actions.every((a) => a.delivery?.state === 'DELIVERED') && p.timeline.entries.some((e) => e.type === 'ReviewJobDecided')
        ? p
        : undefined;
    }, 'both actions delivered and the decision indexed');
    expect(page.personalData).toBe(true);
    expect(page.creator).toEqual(author);
    // The report recorded the item as reported: a second version.
    expect(page.versions.entries.map((v) => [v.version, v.source])).toEqual([
      [1, 'report'],
      [0, 'items'],
    ]);
    expect(page.versions.entries[1]!.data).toMatchObject({ text: 'cheap pills here' });
    const pills = page.evaluations[0]!.rules.find((r) => r.id === 'pills')!;
    expect(pills.outcome).toBe('passed');
    expect(pills.conditions.length).toBeGreaterThan(0);
    // The rule removed it on each version it matched (the report sent it again), then the moderator did.
    expect(new Set(page.actions.map((a) => a.trigger))).toEqual(new Set(['rule', 'decision']));
    expect(page.reports).toEqual([expect.objectContaining({ reportId, reporter: expect.objectContaining({ id: 'r-inv' }), reason: 'selling pills' })]);
    expect(page.jobs).toEqual([
      expect.objectContaining({
        jobId,
        decisions: [expect.objectContaining({ type: 'CUSTOM_ACTION', moderator: world.userIds['ADMIN'], reason: 'pill spam, confirmed' })],
      }),
    ]);
    expect(page.thread.map((t) => [t.id, t.reported])).toEqual([
      ['p-before', false],
      ['p-inv', true],
    ]);
    // Every step, in log order, each with who or what caused it.
    const steps = page.timeline.entries;
    expect(steps.map((e) => e.position)).toEqual([...steps.map((e) => e.position)].sort((a, b) => a - b));
    const at = (type: string) => steps.findIndex((e) => e.type === type);
    const order = ['ItemSubmitted', 'ItemEvaluated', 'ActionCallbackRequested', 'ReportSubmitted', 'ReviewJobOpened', 'ReviewJobDecided'];
    for (const [before, after] of order.slice(1).map((t, i) => [order[i]!, t] as const))
      expect(at(before), `${before} before ${after}`).toBeLessThan(at(after));
    expect(steps[at('ItemSubmitted')]!.actor).toMatch(/^api-key:/);
    expect(steps[at('ReportSubmitted')]!.actor).toMatch(/^api-key:/);
    expect(steps[at('ReviewJobDecided')]!.actor).toBe(`user:${world.userIds['ADMIN']}`);
    // The creator: a strike per remove, a score, their recent items.
    // One strike per remove of this content that counted (the enforcement module's rule), in the window now.
    const strikes = page.creatorStanding!.strikes as { count: number; entries: Array<{ strikes: number; counting: boolean }> };
    expect(page.creatorStanding!.user).toEqual(author);
    expect(strikes.count).toBeGreaterThanOrEqual(1);
    expect(strikes.count).toBe(strikes.entries.filter((e) => e.counting).reduce((sum, e) => sum + e.strikes, 0));
    expect(page.creatorStanding!.score).toBeGreaterThanOrEqual(1);
    expect(page.creatorStanding!.recentItems.map((i) => i.id)).toEqual(['p-inv']);
  });

  it("shows a user's items, actions against them, strikes over time and score", async () => {
    // The score comes from the user-scores read model, which follows the log on its own thread.
    await waitFor(async () => (await json<{ score: number }>(await get('users/user/u-inv'))).score < 5 || undefined, 'the removal in the score');
    const page = await json<{
      profile: { data: Record<string, unknown> | null } | null;
      items: { entries: Array<{ id: string }> };
      actions: Array<{ actionId: string; trigger: string; item: { id: string } }>;
      strikes: { count: number; entries: Array<{ countAfter: number }> };
      score: number;
      erased: boolean;
    }>(await get('users/user/u-inv'));
    expect(page.profile?.data).toEqual({ name: 'Inv' });
    expect(page.items.entries.map((i) => i.id)).toEqual(['p-inv']);
    // The same actions as the item's page shows (the user created nothing else), and the same strikes.
    const item = await json<ItemPage>(await get('items/post/p-inv'));
    expect(page.actions.map((a) => a.trigger)).toEqual(item.actions.map((a) => a.trigger));
    expect(page.strikes.count).toBe(item.creatorStanding!.strikes.count);
    expect(page.strikes.entries.length).toBeGreaterThanOrEqual(1);
    expect(page.strikes.entries[0]!.countAfter).toBe(page.strikes.count);
    expect(page.score).toBeLessThan(5);
    expect(page.erased).toBe(false);
  });

  it('finds the item from its report, job and delivery ids, and a user from its id', async () => {
    const delivery = (await json<ItemPage>(await get('items/post/p-inv'))).actions[0]!.deliveryId;
    for (const [kind, id] of [
      ['report', reportId],
      ['job', jobId],
      ['delivery', delivery],
    ] as const) {
      expect(await json(await get(`lookup?kind=${kind}&id=${encodeURIComponent(id)}`)), kind).toEqual({ kind: 'item', typeId: 'post', id: 'p-inv' });
    }
    expect(await json(await get('lookup?kind=item&typeId=post&id=p-inv'))).toEqual({ kind: 'item', typeId: 'post', id: 'p-inv' });
    expect(await json(await get('lookup?kind=user&typeId=user&id=u-inv'))).toEqual({ kind: 'user', typeId: 'user', id: 'u-inv' });
  });

  it("answers 404 for another organization's ids, whatever the kind", async () => {
    await waitFor(() => loggedEvents(world.dataDir, 'ReportSubmitted').some((e) => e.data['reportId'] === otherReportId), "the other organization's report");
    for (const path of [
      'items/post/p-secret',
      'users/user/u-secret',
      'lookup?kind=item&typeId=post&id=p-secret',
      'lookup?kind=user&typeId=user&id=u-secret',
      `lookup?kind=report&id=${otherReportId}`,
    ]) {
      const body = await json<ErrorBody>(await get(path), 404);
      expect(body.errors[0]!.status, path).toBe(404);
    }
  });

  it('records each page answered in the access audit: who looked at whom', async () => {
    const before = loggedEvents(world.dataDir, 'ConsoleInvestigationViewed').length;
    await json(await get('users/user/u-inv', 'AUDITOR'));
    await json<ErrorBody>(await get('items/post/nothing-here'), 404);
    const views = await waitFor(() => {
      const all = loggedEvents(world.dataDir, 'ConsoleInvestigationViewed');
      return all.length > before ? all.slice(before) : undefined;
    }, 'the lookup recorded');
    expect(views).toHaveLength(1);
    expect(views[0]!.data).toEqual({ userId: world.userIds['AUDITOR'], viewed: { kind: 'user', typeId: 'user', id: 'u-inv' } });
    expect(views[0]!.metadata).toMatchObject({ orgId: 'rev', actor: `user:${world.userIds['AUDITOR']}` });
  });

  it('hides personal fields from an auditor the organization has not granted them, and shows the page to a moderator manager', async () => {
    const audited = await json<ItemPage>(await get('items/post/p-inv', 'AUDITOR'));
    expect(audited.personalData).toBe(false);
    expect(audited.versions.entries[0]!.data).toBeNull();
    expect(audited.reports[0]!).toMatchObject({ reason: null, opened: false });
    const managed = await json<ItemPage>(await get('items/post/p-inv', 'MODERATOR_MANAGER'));
    expect(managed.personalData).toBe(true);
  });

  it("opens the newest reports' reasons and threads within the page's budget, the older ones listed closed", async () => {
    // Three reports of one item, each with a thread item of 600,000 characters: the page opens two (1 Mi characters).
    const item = { id: 'p-threads', typeId: 'post', data: { text: 'a thread', author } };
    for (let i = 0; i < 3; i++) {
      const big = { id: `t-${i}`, typeId: 'post', data: { text: 'x', ...Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, `${i}`.repeat(150_000)])) } };
      const r = await world.api('POST', '/api/v1/report', {
        reporter: { kind: 'user', id: `r-threads-${i}`, typeId: 'user' },
        reportedAt: new Date(Date.UTC(2026, 10, 1, 12, i)).toISOString(),
        reportedItem: item,
        reportedForReason: { reason: `reason ${i}` },
        reportedItemThread: [big],
      });
      await json<{ reportId: string }>(r, 201);
    }
    const page = await waitFor(async () => {
      const p = await json<ItemPage>(await get('items/post/p-threads'));
      return p.reports.length === 3 ? p : undefined;
    }, 'three reports on the item page');
    expect(page.reports.map((r) => [r.reason, r.opened])).toEqual([
      ['reason 2', true],
      ['reason 1', true],
      [null, false],
    ]);
    expect(page.thread.map((t) => t.id)).toEqual(['t-2']);
    // The timeline shows every report without opening any.
    expect(page.timeline.entries.filter((e) => e.type === 'ReportSubmitted')).toHaveLength(3);
  });

  it('refuses a MODERATOR with 403', async () => {
    const body = await json<ErrorBody>(await get('items/post/p-inv', 'MODERATOR'), 403);
    expect(body.errors[0]!.status).toBe(403);
  });

  it('answers bad ids and kinds with the standard error body and a pointer', async () => {
    const long = 'x'.repeat(300);
    const cases: Array<[string, string]> = [
      ['items/post/bad%01id', '/id'],
      ['users/bad%01type/u-inv', '/typeId'],
      [`lookup?kind=item&id=p-inv`, '/typeId'],
      [`lookup?kind=nonsense&id=p-inv`, '/kind'],
      [`lookup?kind=report&id=${long}`, '/id'],
      [`items/post/p-inv?before=-3`, '/before'],
    ];
    for (const [path, pointer] of cases) {
      const body = await json<ErrorBody>(await get(path), 400);
      expect(
        body.errors.map((e) => e.pointer),
        path,
      ).toContain(pointer);
    }
  });
});
