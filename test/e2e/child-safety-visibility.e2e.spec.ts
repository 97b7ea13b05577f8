import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../support/error-body.js';
import {
  authoredPost,
  claimNext,
  decideClaimed,
  reviewOrgConfig,
  type ReviewWorld,
  type Session,
  startReceiver,
  startReviewWorld,
} from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The child-safety queue is shown only with VIEW_CHILD_SAFETY_DATA (docs/review.md, docs/console.md):
 * the queues page and the jobs list leave it out, and so do Insights (its depth, waits, time to
 * decision, decisions per moderator) and Investigate (its jobs, their events, the reports flagged
 * `csam`, what a decision there caused, a lookup of any of them) for an ANALYST, who has
 * VIEW_INSIGHTS and INVESTIGATE but not VIEW_CHILD_SAFETY_DATA, and the job view of another job of
 * the item for a MODERATOR. Asking for the queue by its id is answered as for a queue the
 * organization never had.
 */

interface InsightsReport {
  queues: Array<{ id: string }>;
  queueDepth: { queues: Array<{ id: string }>; rows: Array<{ depth: number[] }> };
  timeToDecision: { byQueue: Array<{ queueId: string; decided: number }>; byDay: Array<{ decided: number }> };
  decisionsByModerator: { moderators: string[] };
}
interface Timeline {
  entries: Array<{ type: string; summary: string }>;
}
interface Strikes {
  count: number;
  entries: Array<{ actionId: string; item: { id: string } }>;
}
interface ItemPage {
  versions: { entries: Array<{ version: number }> };
  jobs: Array<{ jobId: string; queueId: string | null; decisions: Array<{ type: string; closeReason: string | null }> }>;
  timeline: Timeline;
  reports: Array<{ reportId: string }>;
  actions: Array<{ deliveryId: string; trigger: string }>;
  creatorStanding: { strikes: Strikes } | null;
}
interface UserPage {
  timeline: Timeline;
  reportsFiled: Array<{ reportId: string }>;
  actions: Array<{ deliveryId: string; trigger: string }>;
  strikes: Strikes;
}
interface JobView {
  actions: { item: Array<{ deliveryId: string; trigger: string }>; creator: Array<{ deliveryId: string; trigger: string }> };
}

const today = () => new Date().toISOString().slice(0, 10);
/** What a decision's action caused, outside the job's stream: the strike, the threshold it crossed, the callbacks and their attempts. */
const CAUSED = [
  'UserStrikesApplied',
  'UserStrikeThresholdCrossed',
  'ActionCallbackRequested',
  'CallbackDeliveryRequested',
  'CallbackDelivered',
  'CallbackAttemptFailed',
];

describe('the child-safety queue without VIEW_CHILD_SAFETY_DATA', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: Session;
  let analyst: Session;
  let moderator: Session;
  let decidedJobId: string;
  /** The item of the decided child-safety job, and its creator (`author-of-<item>`). */
  let decidedItem: string;
  let creator: string;
  const csamReports: string[] = [];
  let plainReport: string;
  /** The callbacks of the decision's action and of the strike threshold it crossed. */
  let decisionDelivery: string;
  let thresholdDelivery: string;
  /** The job a plain report of the decided item opened in the default queue. */
  let plainJobId: string;

  const get = (session: Session, path: string) => world.call(session, 'GET', path);
  const json = async <T>(response: Response): Promise<T> => {
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as T;
  };
  const insights = async (session: Session, extra = '') =>
    json<InsightsReport>(await get(session, `/api/console/v1/insights?from=${today()}&to=${today()}${extra}`));
  const csamReport = (id: string) => ({
    reporter: { kind: 'user', id: 'r-cs', typeId: 'user' },
    reportedAt: new Date().toISOString(),
    reportedItem: authoredPost(id, 'reported as abuse'),
    reportedForReason: { reason: 'abuse', csam: true },
  });
  const deliveryOf = (path: string) =>
    waitFor(() => receiver.received.find((c) => c.path === path), `the callback at ${path}`).then((c) => String(c.headers['service-delivery-id']));
  const lookup = (session: Session, kind: string, id: string) => get(session, `/api/console/v1/investigate/lookup?kind=${kind}&id=${id}`);
  /** A lookup the viewer may not make: the 404 of an id Warden has no record of. */
  const expectHidden = async (kind: string, id: string) => {
    const hidden = await expectErrorBody(await lookup(analyst, kind, id), 404, '/errors/not-found');
    const missing = await expectErrorBody(await lookup(analyst, kind, 'no-such-id'), 404, '/errors/not-found');
    expect(hidden['detail']).toBe(String(missing['detail']).replace('no-such-id', id));
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    // A user's first strike crosses a threshold whose action (warn) is called back too.
    const warn = `  - { id: warn, name: Warn, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [user], callback: { url: ${receiver.url}/hooks/warn } }\n`;
    const config = reviewOrgConfig(receiver.url, 'strikes:\n  thresholds:\n    - { strikes: 1, actionId: warn }\n').replace('rules:\n', `${warn}rules:\n`);
    world = await startReviewWorld(config, ['ADMIN', 'ANALYST', 'MODERATOR']);
    admin = world.sessions['ADMIN']!;
    analyst = world.sessions['ANALYST']!;
    moderator = world.sessions['MODERATOR']!;
    // Two child-safety jobs: the ADMIN decides one (a removal under the spam policy: a strike), the other stays open.
    for (const id of ['cs-1', 'cs-2']) {
      const r = await world.api('POST', '/api/v1/report', csamReport(id));
      expect(r.status, await r.clone().text()).toBe(201);
      csamReports.push(((await r.json()) as { reportId: string }).reportId);
    }
    const claimed = await waitFor(() => claimNext(world, admin, 'child-safety'), 'a child-safety job');
    decidedJobId = claimed.job.jobId;
    decidedItem = claimed.job.item.id;
    creator = `author-of-${decidedItem}`;
    await decideClaimed(world, admin, claimed, { type: 'CUSTOM_ACTION', actionIds: ['remove'], policyIds: ['spam'] });
    decisionDelivery = await deliveryOf('/hooks/remove');
    thresholdDelivery = await deliveryOf('/hooks/warn');
    // A plain report of the same item afterwards: a job of the default queue, which a MODERATOR sees.
    const plain = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'r-plain', typeId: 'user' },
      reportedAt: new Date().toISOString(),
      reportedItem: authoredPost(decidedItem, 'reported as abuse'),
      reportedForReason: { reason: 'spam', policyId: 'spam' },
    });
    expect(plain.status, await plain.clone().text()).toBe(201);
    plainReport = ((await plain.json()) as { reportId: string }).reportId;
    plainJobId = (await waitFor(() => claimNext(world, moderator, 'default'), 'the plain report in the default queue')).job.jobId;
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('is left out of Insights, and asked for by id is answered as an unknown queue', async () => {
    // The ADMIN sees it: one open job, one decided by the ADMIN.
    const all = await waitFor(async () => {
      const r = await insights(admin);
      return r.timeToDecision.byQueue.some((q) => q.queueId === 'child-safety' && q.decided === 1) ? r : undefined;
    }, "the child-safety decision in the ADMIN's insights");
    expect(all.queues.map((q) => q.id)).toContain('child-safety');
    expect(all.queueDepth.rows[0]!.depth[all.queueDepth.queues.findIndex((q) => q.id === 'child-safety')]).toBe(1);
    expect(all.decisionsByModerator.moderators).toEqual([world.userIds['ADMIN']]);

    const seen = await insights(analyst);
    expect(seen.queues.map((q) => q.id)).not.toContain('child-safety');
    expect(seen.queueDepth.queues.map((q) => q.id)).not.toContain('child-safety');
    expect(seen.timeToDecision.byQueue.map((q) => q.queueId)).not.toContain('child-safety');
    // The decision in the child-safety queue is counted nowhere the ANALYST sees.
    expect(seen.timeToDecision.byDay[0]!.decided).toBe(0);
    expect(seen.decisionsByModerator.moderators).toEqual([]);

    const unknown = await get(analyst, '/api/console/v1/insights?queue=no-such-queue');
    const asked = await get(analyst, '/api/console/v1/insights?queue=child-safety');
    const unknownError = await expectErrorBody(unknown, 400, '/errors/invalid-user-input', '/queue');
    const askedError = await expectErrorBody(asked, 400, '/errors/invalid-user-input', '/queue');
    expect(askedError['detail']).toBe(String(unknownError['detail']).replace('no-such-queue', 'child-safety'));
    expect((await insights(admin, '&queue=child-safety')).queueDepth.queues.map((q) => q.id)).toEqual(['child-safety']);
  });

  it("is left out of Investigate: the item's jobs and their events, the csam reports, and a lookup of either", async () => {
    const adminPage = await waitFor(async () => {
      const page = await json<ItemPage>(await get(admin, `/api/console/v1/investigate/items/post/${decidedItem}`));
      const types = page.timeline.entries.map((e) => e.type);
      return types.includes('ReviewJobDecided') && types.filter((t) => t === 'ReviewJobClaimed').length === 2 ? page : undefined;
    }, "the decided child-safety job and the claimed default one on their item's page");
    expect(adminPage.jobs).toEqual([
      expect.objectContaining({ queueId: 'default' }),
      expect.objectContaining({ jobId: decidedJobId, queueId: 'child-safety' }),
    ]);
    expect(adminPage.timeline.entries.some((e) => e.summary.includes('child-safety'))).toBe(true);
    expect(adminPage.reports.map((r) => r.reportId).sort()).toEqual([plainReport, csamReports[decidedItem === 'cs-1' ? 0 : 1]].sort());
    const reporter = await json<UserPage>(await get(admin, '/api/console/v1/investigate/users/user/r-cs'));
    expect(reporter.reportsFiled.map((r) => r.reportId).sort()).toEqual([...csamReports].sort());

    // The ADMIN sees both versions of the decided item: the one its csam report recorded, and the plain report's.
    expect(adminPage.versions.entries.map((v) => v.version)).toEqual([1, 0]);
    for (const id of ['cs-1', 'cs-2']) {
      const response = await get(analyst, `/api/console/v1/investigate/items/post/${id}`);
      const page = await json<ItemPage>(response.clone());
      // The item and its plain report are there; its csam report, the version it recorded, the child-safety job and every step of it are not.
      expect(page.reports.map((r) => r.reportId)).toEqual(id === decidedItem ? [plainReport] : []);
      expect(page.jobs.map((j) => j.queueId)).toEqual(id === decidedItem ? ['default'] : []);
      expect(page.versions.entries.map((v) => v.version)).toEqual(id === decidedItem ? [1] : []);
      const types = page.timeline.entries.map((e) => e.type);
      expect(types.filter((t) => t === 'ItemSubmitted')).toHaveLength(id === decidedItem ? 1 : 0);
      if (id !== decidedItem) expect(await response.text()).not.toContain('reported as abuse');
      expect(types.filter((t) => t.startsWith('Report') || t.startsWith('ReviewJob') || t === 'ChildSafetyReportRecorded')).toEqual(
        id === decidedItem ? ['ReportSubmitted', 'ReportRouted', 'ReviewJobOpened', 'ReviewJobClaimed'] : [],
      );
      expect(page.timeline.entries.filter((e) => e.summary.includes('child-safety'))).toEqual([]);
    }
    // The reporter, known only by the reports they flagged csam, is not found: the 404 of an unknown user, the view not recorded.
    const unknownUser = await expectErrorBody(await get(analyst, '/api/console/v1/investigate/users/user/no-such-user'), 404, '/errors/not-found');
    const reporterPage = await expectErrorBody(await get(analyst, '/api/console/v1/investigate/users/user/r-cs'), 404, '/errors/not-found');
    expect(reporterPage['detail']).toBe(String(unknownUser['detail']).replace('no-such-user', 'r-cs'));
    // So is the creator of the item only a csam report recorded: the ADMIN sees them.
    const openCreator = `author-of-${decidedItem === 'cs-1' ? 'cs-2' : 'cs-1'}`;
    expect(
      (await json<UserPage & { items: { entries: unknown[] } }>(await get(admin, `/api/console/v1/investigate/users/user/${openCreator}`))).items.entries,
    ).toHaveLength(1);
    const creatorPage = await expectErrorBody(await get(analyst, `/api/console/v1/investigate/users/user/${openCreator}`), 404, '/errors/not-found');
    expect(creatorPage['detail']).toBe(String(unknownUser['detail']).replace('no-such-user', openCreator));
    const unknownLookup = await expectErrorBody(
      await get(analyst, '/api/console/v1/investigate/lookup?kind=user&typeId=user&id=no-such-user'),
      404,
      '/errors/not-found',
    );
    const reporterLookup = await expectErrorBody(
      await get(analyst, '/api/console/v1/investigate/lookup?kind=user&typeId=user&id=r-cs'),
      404,
      '/errors/not-found',
    );
    expect(reporterLookup['detail']).toBe(String(unknownLookup['detail']).replace('no-such-user', 'r-cs'));

    expect((await json<{ id: string }>(await lookup(admin, 'job', decidedJobId))).id).toBe(decidedItem);
    expect((await json<{ id: string }>(await lookup(admin, 'report', csamReports[0]!))).id).toBe('cs-1');
    await expectHidden('job', decidedJobId);
    for (const report of csamReports) await expectHidden('report', report);
    expect((await json<{ id: string }>(await lookup(analyst, 'report', plainReport))).id).toBe(decidedItem);
  });

  it('is left out of Investigate: what its decision caused (the strike, the callbacks, the threshold it crossed)', async () => {
    // The ADMIN sees it all once the audit's index has it: on the item's page and on its creator's.
    const adminItem = await waitFor(async () => {
      const page = await json<ItemPage>(await get(admin, `/api/console/v1/investigate/items/post/${decidedItem}`));
      const types = page.timeline.entries.map((e) => e.type);
      return types.includes('UserStrikesApplied') && types.includes('CallbackDelivered') ? page : undefined;
    }, "the decision's strike and callback on the item's page");
    expect(adminItem.creatorStanding!.strikes.entries).toEqual([
      expect.objectContaining({ actionId: 'remove', item: expect.objectContaining({ id: decidedItem }) }),
    ]);
    const adminUser = await waitFor(async () => {
      const page = await json<UserPage>(await get(admin, `/api/console/v1/investigate/users/user/${creator}`));
      return page.actions.some((a) => a.deliveryId === thresholdDelivery) && page.timeline.entries.some((e) => e.type === 'CallbackDelivered')
        ? page
        : undefined;
    }, "the threshold's callback on the creator's page");
    expect(adminUser.actions.map((a) => a.trigger).sort()).toEqual(['decision', 'strike-threshold']);
    expect(adminUser.strikes.entries).toHaveLength(1);
    expect(adminUser.timeline.entries.map((e) => e.type)).toContain('UserStrikeThresholdCrossed');
    expect((await json<{ id: string }>(await lookup(admin, 'delivery', decisionDelivery))).id).toBe(decidedItem);

    const itemResponse = await get(analyst, `/api/console/v1/investigate/items/post/${decidedItem}`);
    const item = await json<ItemPage>(itemResponse.clone());
    expect(item.actions).toEqual([]);
    expect(item.timeline.entries.map((e) => e.type).filter((t) => CAUSED.includes(t))).toEqual([]);
    // The strike is not listed; the count is the user's, every strike in it.
    expect(item.creatorStanding!.strikes).toEqual(expect.objectContaining({ count: adminItem.creatorStanding!.strikes.count, entries: [] }));
    const userResponse = await get(analyst, `/api/console/v1/investigate/users/user/${creator}`);
    const user = await json<UserPage>(userResponse.clone());
    expect(user.actions).toEqual([]);
    expect(user.strikes.entries).toEqual([]);
    expect(user.timeline.entries.map((e) => e.type).filter((t) => CAUSED.includes(t))).toEqual([]);
    for (const text of [await itemResponse.text(), await userResponse.text()]) {
      for (const hidden of [decidedJobId, decisionDelivery, thresholdDelivery]) expect(text).not.toContain(hidden);
    }
    await expectHidden('delivery', decisionDelivery);
    await expectHidden('delivery', thresholdDelivery);
  });

  it("is left out of the job view of another job of the item: the decision's action, the threshold it crossed", async () => {
    // The ADMIN's view of the default job shows the child-safety decision's action on the item, and on its creator the threshold's.
    await waitFor(async () => {
      const view = await json<JobView>(await get(admin, `/api/console/v1/jobs/${plainJobId}`));
      const creatorActions = view.actions.creator.map((a) => a.deliveryId);
      return (
        view.actions.item.some((a) => a.deliveryId === decisionDelivery && a.trigger === 'decision') &&
        creatorActions.includes(decisionDelivery) &&
        creatorActions.includes(thresholdDelivery)
      );
    }, "the child-safety decision's actions in the ADMIN's job view");
    const response = await get(moderator, `/api/console/v1/jobs/${plainJobId}`);
    const view = await json<JobView>(response.clone());
    expect(view.actions.item.filter((a) => a.trigger !== 'rule')).toEqual([]);
    expect(view.actions.creator.filter((a) => a.trigger !== 'rule')).toEqual([]);
    const text = await response.text();
    for (const hidden of [decidedJobId, decisionDelivery, thresholdDelivery]) expect(text).not.toContain(hidden);
    // The child-safety job itself is not found.
    await expectErrorBody(await get(moderator, `/api/console/v1/jobs/${decidedJobId}`), 404, '/errors/not-found');
  });

  it('is listed on the queues page for an ADMIN, and the review routes refuse the ANALYST outright (no VIEW_MRT)', async () => {
    const queues = await json<{ queues: Array<{ id: string }> }>(await get(world.sessions['ADMIN']!, '/api/console/v1/queues'));
    expect(queues.queues.map((q) => q.id)).toContain('child-safety');
    // The ANALYST has no VIEW_MRT: the review routes are refused outright.
    await expectErrorBody(await get(analyst, '/api/console/v1/queues'), 403, '/errors/forbidden');
  });
});

/** A routing rule sends plain reports saying "grooming" to the child-safety queue. */
const ROUTING = `
routingRules:
  - id: to-child-safety
    name: To child safety
    queueId: child-safety
    itemTypeIds: [post]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { builtin: REPORT_REASON }, signal: { type: TEXT_CONTAINS, args: { terms: [grooming] } }, comparator: EQUALS, value: true }
`;

describe('child-safety data reached otherwise, without VIEW_CHILD_SAFETY_DATA', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: Session;
  let analyst: Session;
  let moderator: Session;
  let routedReport: string;
  /** The default jobs the ADMIN sent to child-safety. */
  const sentJobs: string[] = [];
  const get = (session: Session, path: string) => world.call(session, 'GET', path);
  const json = async <T>(response: Response): Promise<T> => {
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as T;
  };
  const report = (item: string, reporter: string, reason: { reason: string; csam?: boolean; policyId?: string }) =>
    world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: reporter, typeId: 'user' },
      reportedAt: new Date().toISOString(),
      reportedItem: authoredPost(item, 'reported'),
      reportedForReason: reason,
    });
  const itemPage = (session: Session, id: string) => get(session, `/api/console/v1/investigate/items/post/${id}`);

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url, ROUTING), ['ADMIN', 'ANALYST', 'MODERATOR']);
    admin = world.sessions['ADMIN']!;
    analyst = world.sessions['ANALYST']!;
    moderator = world.sessions['MODERATOR']!;
    // Many csam reports of one item: more child-safety entries on its page than its timeline shows.
    for (let i = 0; i < 20; i++) expect((await report('cs-many', 'r-many', { reason: 'abuse', csam: true })).status).toBe(201);
    // A plain report a routing rule sends to child-safety.
    const routed = await report('routed-1', 'r-routed', { reason: 'grooming' });
    expect(routed.status, await routed.clone().text()).toBe(201);
    routedReport = ((await routed.json()) as { reportId: string }).reportId;
    // Two plain reports in the default queue, whose jobs the ADMIN sends to child-safety: a report, a move there.
    for (const id of ['submitted-1', 'moved-1']) expect((await report(id, `r-${id}`, { reason: 'spam' })).status).toBe(201);
    for (let decided = 0; decided < 2; decided++) {
      const claimed = await waitFor(() => claimNext(world, admin, 'default'), 'a default job');
      sentJobs.push(claimed.job.jobId);
      await decideClaimed(
        world,
        admin,
        claimed,
        claimed.job.item.id === 'submitted-1'
          ? { type: 'SUBMIT_CHILD_SAFETY_REPORT', reason: 'seen in review' }
          : { type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', targetQueueId: 'child-safety' },
      );
    }
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it("leaves out of a timeline's `earlier` the child-safety entries it does not show", async () => {
    await waitFor(async () => {
      const page = await json<ItemPage & { timeline: { earlier: boolean } }>(await itemPage(admin, 'cs-many'));
      return page.reports.length === 20 && page.timeline.earlier ? page : undefined;
    }, "the 20 csam reports on the ADMIN's page");
    const page = await json<ItemPage & { timeline: { earlier: boolean } }>(await itemPage(analyst, 'cs-many'));
    expect(page.reports).toEqual([]);
    // Each report sent the item again: 20 versions, left out as the reports are, and their evaluations, fewer than a timeline's 50.
    expect(new Set(page.timeline.entries.map((e) => e.type))).toEqual(new Set(['ItemEvaluated']));
    expect(page.timeline.earlier).toBe(false);
    await expectErrorBody(await get(analyst, '/api/console/v1/investigate/users/user/r-many'), 404, '/errors/not-found');
    await expectErrorBody(await get(analyst, '/api/console/v1/investigate/users/user/author-of-cs-many'), 404, '/errors/not-found');
  });

  it('leaves out a plain report a routing rule sent to child-safety', async () => {
    await waitFor(async () => {
      const page = await json<ItemPage>(await itemPage(admin, 'routed-1'));
      return page.timeline.entries.some((e) => e.type === 'ReportRouted') && page.jobs.some((j) => j.queueId === 'child-safety') ? page : undefined;
    }, 'the routed report and its child-safety job');
    const response = await itemPage(analyst, 'routed-1');
    const page = await json<ItemPage>(response.clone());
    expect(page.reports).toEqual([]);
    expect(page.jobs).toEqual([]);
    expect(page.timeline.entries.map((e) => e.type)).toEqual(['ItemSubmitted', 'ItemEvaluated']);
    expect(await response.text()).not.toContain(routedReport);
    // Its reporter, known by it alone, is not found either.
    await expectErrorBody(await get(analyst, '/api/console/v1/investigate/users/user/r-routed'), 404, '/errors/not-found');
    expect((await json<UserPage>(await get(admin, '/api/console/v1/investigate/users/user/r-routed'))).reportsFiled).toHaveLength(1);
    const hidden = await expectErrorBody(await get(analyst, `/api/console/v1/investigate/lookup?kind=report&id=${routedReport}`), 404, '/errors/not-found');
    const missing = await expectErrorBody(await get(analyst, '/api/console/v1/investigate/lookup?kind=report&id=no-such-id'), 404, '/errors/not-found');
    expect(hidden['detail']).toBe(String(missing['detail']).replace('no-such-id', routedReport));
    expect((await json<{ id: string }>(await get(admin, `/api/console/v1/investigate/lookup?kind=report&id=${routedReport}`))).id).toBe('routed-1');
  });

  it('leaves out a default job that a decision sent to child-safety (a child-safety report, a move there), as a whole', async () => {
    for (const id of ['submitted-1', 'moved-1']) {
      await waitFor(async () => {
        const page = await json<ItemPage>(await itemPage(admin, id));
        const types = page.timeline.entries.map((e) => e.type);
        return types.includes('ReviewJobDecided') && (id === 'moved-1' ? page.jobs.length === 2 : types.includes('ChildSafetyReportRecorded'))
          ? page
          : undefined;
      }, `the decision on ${id} on the ADMIN's page`);
      const response = await itemPage(analyst, id);
      const page = await json<ItemPage>(response.clone());
      const types = page.timeline.entries.map((e) => e.type);
      expect(types).not.toContain('ChildSafetyReportRecorded');
      // Not shown undecided: the job, its opening, its claim and its decision are left out; its plain report stays.
      expect(types.filter((t) => t.startsWith('ReviewJob'))).toEqual([]);
      expect(page.jobs).toEqual([]);
      expect(page.reports).toHaveLength(1);
      const text = await response.text();
      for (const job of sentJobs) expect(text).not.toContain(job);
      // (The rule "to-child-safety" of the organization's configuration is in the item's evaluations.)
      expect(text).not.toContain('"child-safety"');
      expect(text).not.toContain('queue child-safety');
      expect(text).not.toContain('SUBMIT_CHILD_SAFETY_REPORT');
    }
  });

  it("answers a job a decision sent to child-safety as not found in the job view, and leaves it out of another job's history", async () => {
    for (const job of sentJobs) {
      expect((await get(admin, `/api/console/v1/jobs/${job}`)).status).toBe(200);
      await expectErrorBody(await get(moderator, `/api/console/v1/jobs/${job}`), 404, '/errors/not-found');
      // A command on it answers as the view does: not a closed job the moderator could learn of.
      await expectErrorBody(await world.call(moderator, 'POST', `/api/console/v1/jobs/${job}/skip`, { lockToken: 'a-token' }), 404, '/errors/not-found');
      expect((await world.call(admin, 'POST', `/api/console/v1/jobs/${job}/skip`, { lockToken: 'a-token' })).status).toBe(409);
      // Its decision and its whole item too: the item's data is the child-safety queue's.
      await expectErrorBody(
        await world.call(moderator, 'POST', `/api/console/v1/jobs/${job}/decision`, { lockToken: 'a-token', type: 'IGNORE' }),
        404,
        '/errors/not-found',
      );
      await expectErrorBody(await world.call(moderator, 'POST', `/api/console/v1/jobs/${job}/full-item`), 404, '/errors/not-found');
    }
    // A later plain report of each item opens a job the MODERATOR sees; its history shows the ADMIN the earlier job, not the MODERATOR.
    type History = { history: { item: Array<{ jobId: string }> } };
    for (const id of ['submitted-1', 'moved-1']) expect((await report(id, `r2-${id}`, { reason: 'spam' })).status).toBe(201);
    const later = await waitFor(async () => {
      const r = await get(admin, '/api/console/v1/jobs?queueId=default&state=PENDING');
      const jobs = ((await r.json()) as { jobs: Array<{ jobId: string; item: { id: string } }> }).jobs;
      return jobs.length === 2 ? jobs.map((j) => j.jobId) : undefined;
    }, 'the later jobs of both items');
    for (const job of later) {
      expect((await json<History>(await get(admin, `/api/console/v1/jobs/${job}`))).history.item.map((j) => j.jobId).some((j) => sentJobs.includes(j))).toBe(
        true,
      );
      const response = await get(moderator, `/api/console/v1/jobs/${job}`);
      expect((await json<History>(response.clone())).history.item).toEqual([]);
      const text = await response.text();
      for (const sent of sentJobs) expect(text).not.toContain(sent);
    }
  });
});

describe('what a child-safety decision touched elsewhere, without VIEW_CHILD_SAFETY_DATA', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: Session;
  let analyst: Session;
  let moderator: Session;
  /** The default job of closed-1, open when the child-safety decision removed the item. */
  let closedJobId: string;
  let csJobId: string;
  /** The child-safety decision's removal of closed-1. */
  let csDelivery: string;
  let appealJobId: string;
  const author = { id: 'author-cs', typeId: 'user' };
  const post = (id: string) => ({ id, typeId: 'post', data: { text: `post ${id}`, author } });
  const get = (session: Session, path: string) => world.call(session, 'GET', path);
  const json = async <T>(response: Response): Promise<T> => {
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as T;
  };
  const report = (id: string, reason: { reason: string; csam?: boolean }) =>
    world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: `r-${id}`, typeId: 'user' },
      reportedAt: new Date().toISOString(),
      reportedItem: post(id),
      reportedForReason: reason,
    });

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url, `appeals:\n  callback: { url: ${receiver.url}/hooks/appeals }\n`), [
      'ADMIN',
      'ANALYST',
      'MODERATOR',
    ]);
    admin = world.sessions['ADMIN']!;
    analyst = world.sessions['ANALYST']!;
    moderator = world.sessions['MODERATOR']!;
    // A plain report of closed-1 opens a default job; then a csam report of it, which the ADMIN decides: a removal (a strike).
    expect((await report('closed-1', { reason: 'spam' })).status).toBe(201);
    closedJobId = await waitFor(async () => {
      const page = await json<ItemPage>(await get(admin, '/api/console/v1/investigate/items/post/closed-1'));
      return page.jobs.find((j) => j.queueId === 'default')?.jobId;
    }, 'the default job of closed-1');
    expect((await report('closed-1', { reason: 'abuse', csam: true })).status).toBe(201);
    const claimed = await waitFor(() => claimNext(world, admin, 'child-safety'), 'the child-safety job');
    csJobId = claimed.job.jobId;
    await decideClaimed(world, admin, claimed, { type: 'CUSTOM_ACTION', actionIds: ['remove'], policyIds: ['spam'] });
    await waitFor(async () => {
      const page = await json<ItemPage>(await get(admin, '/api/console/v1/investigate/items/post/closed-1'));
      return page.jobs.find((j) => j.jobId === closedJobId)?.decisions[0];
    }, 'the default job of closed-1 closed');
    // A later strike of the same user, by a default job's decision: listed to all.
    expect((await report('later-1', { reason: 'spam' })).status).toBe(201);
    const later = await waitFor(() => claimNext(world, admin, 'default'), 'the default job of later-1');
    expect(later.job.item.id).toBe('later-1');
    await decideClaimed(world, admin, later, { type: 'CUSTOM_ACTION', actionIds: ['remove'], policyIds: ['spam'] });
    csDelivery = await waitFor(async () => {
      const page = await json<ItemPage>(await get(admin, '/api/console/v1/investigate/items/post/closed-1'));
      return page.actions.find((a) => a.trigger === 'decision')?.deliveryId;
    }, "the child-safety decision's action on closed-1");
    // The user appeals the removal of closed-1.
    const appealed = await world.api('POST', '/api/v1/report/appeal', {
      appealId: 'ap-cs',
      appealedBy: author,
      appealedAt: new Date().toISOString(),
      actionedItem: post('closed-1'),
      actionsTaken: ['remove'],
      appealReason: 'not me',
      violatingPolicies: [{ id: 'spam' }],
    });
    expect(appealed.status, await appealed.clone().text()).toBe(204);
    appealJobId = await waitFor(async () => {
      const r = await get(admin, '/api/console/v1/jobs?queueId=appeals&state=PENDING');
      return ((await r.json()) as { jobs: Array<{ jobId: string; item: { id: string } }> }).jobs.find((j) => j.item.id === 'closed-1')?.jobId;
    }, 'the appeal job');
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('shows a default job closed because a child-safety decision actioned its item as closed by Warden, without the reason', async () => {
    const decisionOf = (page: ItemPage) => page.jobs.find((j) => j.jobId === closedJobId)?.decisions[0];
    const adminPage = await waitFor(async () => {
      const page = await json<ItemPage>(await get(admin, '/api/console/v1/investigate/items/post/closed-1'));
      return decisionOf(page) ? page : undefined;
    }, 'the default job closed');
    expect(decisionOf(adminPage)).toEqual(expect.objectContaining({ type: 'AUTOMATIC_CLOSE', closeReason: 'ITEM_ACTIONED' }));
    const response = await get(analyst, '/api/console/v1/investigate/items/post/closed-1');
    const page = await json<ItemPage>(response.clone());
    expect(page.jobs.map((j) => j.jobId)).not.toContain(csJobId);
    expect(decisionOf(page)).toEqual(expect.objectContaining({ type: 'AUTOMATIC_CLOSE', closeReason: null }));
    expect(await response.text()).not.toContain('ITEM_ACTIONED');
  });

  it('lists no count after a strike to a viewer not shown every strike (it would tell of a hidden one)', async () => {
    type Strikes = { count: number; entries: Array<{ item: { id: string }; countAfter: number | null }> };
    const adminUser = await waitFor(async () => {
      const page = await json<{ strikes: Strikes }>(await get(admin, `/api/console/v1/investigate/users/user/${author.id}`));
      return page.strikes.entries.length === 2 ? page : undefined;
    }, 'both strikes on the user');
    expect(adminUser.strikes.entries.map((e) => [e.item.id, e.countAfter])).toEqual([
      ['later-1', 2],
      ['closed-1', 1],
    ]);
    const response = await get(analyst, `/api/console/v1/investigate/users/user/${author.id}`);
    const user = await json<{ strikes: Strikes; timeline: Timeline }>(response.clone());
    expect(user.strikes.count).toBe(2);
    expect(user.strikes.entries.map((e) => [e.item.id, e.countAfter])).toEqual([['later-1', null]]);
    expect(user.timeline.entries.filter((e) => e.type === 'UserStrikesApplied').map((e) => e.summary)).toEqual(['1 strike(s) for action remove']);
  });

  it("leaves the child-safety decision out of an appeal job's view for a moderator without the permission", async () => {
    type AppealJob = {
      appeal: {
        actionsTaken: Array<{ actionId: string; callbacks: Array<{ deliveryId: string; decision: { jobId: string } | null }> }>;
        strikes: { count: number; history: Array<{ item: { id: string }; countAfter: number | null }> };
      };
    };
    const adminView = await json<AppealJob>(await get(admin, `/api/console/v1/jobs/${appealJobId}`));
    expect(adminView.appeal.actionsTaken[0]!.callbacks.map((c) => [c.deliveryId, c.decision?.jobId])).toContainEqual([csDelivery, csJobId]);
    expect(adminView.appeal.strikes.history.map((h) => [h.item.id, h.countAfter])).toEqual([
      ['later-1', 2],
      ['closed-1', 1],
    ]);
    const response = await get(moderator, `/api/console/v1/jobs/${appealJobId}`);
    const view = await json<AppealJob>(response.clone());
    expect(view.appeal.actionsTaken.map((a) => a.actionId)).toEqual(['remove']);
    expect(view.appeal.actionsTaken[0]!.callbacks).toEqual([]);
    // Nor the strike it applied, and no count after the strike listed; the count is the user's.
    expect(view.appeal.strikes.count).toBe(2);
    expect(view.appeal.strikes.history.map((h) => [h.item.id, h.countAfter])).toEqual([['later-1', null]]);
    const text = await response.text();
    for (const hidden of [csDelivery, csJobId]) expect(text).not.toContain(hidden);
  });

  it("leaves the child-safety decision's statements of reasons out of the Transparency pages", async () => {
    type Statements = { statements: Array<{ deliveryId: string }> };
    const period = `from=${today()}&to=${today()}`;
    const listed = await waitFor(async () => {
      const page = await json<Statements>(await get(admin, `/api/console/v1/transparency/statements?${period}`));
      return page.statements.some((s) => s.deliveryId === csDelivery) ? page : undefined;
    }, "the child-safety decision's statement for the ADMIN");
    expect(listed.statements.length).toBeGreaterThan(1);
    const analystPage = await json<Statements>(await get(analyst, `/api/console/v1/transparency/statements?${period}`));
    expect(analystPage.statements.map((s) => s.deliveryId)).toEqual(listed.statements.map((s) => s.deliveryId).filter((id) => id !== csDelivery));
    const itemPath = '/api/console/v1/transparency/items/post/closed-1/statements';
    expect((await json<Statements>(await get(admin, itemPath))).statements.map((s) => s.deliveryId)).toEqual([csDelivery]);
    expect((await json<Statements>(await get(moderator, itemPath))).statements).toEqual([]);
  });
});
