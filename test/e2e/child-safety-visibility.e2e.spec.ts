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
 * decision, decisions per moderator) and Investigate (its jobs, their events, a lookup of one of
 * them) for an ANALYST, who has VIEW_INSIGHTS and INVESTIGATE but not VIEW_CHILD_SAFETY_DATA.
 * Asking for the queue by its id is answered as for a queue the organization never had.
 */

interface InsightsReport {
  queues: Array<{ id: string }>;
  queueDepth: { queues: Array<{ id: string }>; rows: Array<{ depth: number[] }> };
  timeToDecision: { byQueue: Array<{ queueId: string; decided: number }>; byDay: Array<{ decided: number }> };
  decisionsByModerator: { moderators: string[] };
}
interface ItemPage {
  jobs: Array<{ jobId: string; queueId: string | null }>;
  timeline: { entries: Array<{ type: string; summary: string }> };
  reports: unknown[];
}

const today = () => new Date().toISOString().slice(0, 10);

describe('the child-safety queue without VIEW_CHILD_SAFETY_DATA', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: Session;
  let analyst: Session;
  let decidedJobId: string;

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

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['ADMIN', 'ANALYST']);
    admin = world.sessions['ADMIN']!;
    analyst = world.sessions['ANALYST']!;
    // Two child-safety jobs: the ADMIN decides one, the other stays open.
    for (const id of ['cs-1', 'cs-2']) {
      const r = await world.api('POST', '/api/v1/report', csamReport(id));
      expect(r.status, await r.clone().text()).toBe(201);
    }
    const claimed = await waitFor(() => claimNext(world, admin, 'child-safety'), 'a child-safety job');
    decidedJobId = claimed.job.jobId;
    await decideClaimed(world, admin, claimed, { type: 'IGNORE' });
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

  it("is left out of Investigate: the item's jobs and their events, and a lookup of such a job", async () => {
    const adminPage = await waitFor(async () => {
      const p = await json<ItemPage>(await get(admin, '/api/console/v1/investigate/items/post/cs-1'));
      const q = await json<ItemPage>(await get(admin, '/api/console/v1/investigate/items/post/cs-2'));
      const decided = [p, q].find((page) => page.jobs.some((j) => j.jobId === decidedJobId));
      return decided?.timeline.entries.some((e) => e.type === 'ReviewJobDecided') ? decided : undefined;
    }, "the decided child-safety job on its item's page");
    expect(adminPage.jobs).toEqual([expect.objectContaining({ jobId: decidedJobId, queueId: 'child-safety' })]);
    expect(adminPage.timeline.entries.some((e) => e.summary.includes('child-safety'))).toBe(true);

    for (const id of ['cs-1', 'cs-2']) {
      const page = await json<ItemPage>(await get(analyst, `/api/console/v1/investigate/items/post/${id}`));
      // The item and its report are there; the child-safety job and every step of it are not.
      expect(page.reports.length).toBe(1);
      expect(page.jobs).toEqual([]);
      const types = page.timeline.entries.map((e) => e.type);
      expect(types).toContain('ReportSubmitted');
      expect(types.filter((t) => t.startsWith('ReviewJob') || t === 'ChildSafetyReportRecorded')).toEqual([]);
      expect(page.timeline.entries.filter((e) => e.summary.includes('child-safety'))).toEqual([]);
    }

    const lookup = (session: Session, jobId: string) => get(session, `/api/console/v1/investigate/lookup?kind=job&id=${jobId}`);
    expect((await json<{ id: string }>(await lookup(admin, decidedJobId))).id).toMatch(/^cs-[12]$/);
    const hidden = await expectErrorBody(await lookup(analyst, decidedJobId), 404, '/errors/not-found');
    const missing = await expectErrorBody(await lookup(analyst, 'no-such-job'), 404, '/errors/not-found');
    expect(hidden['detail']).toBe(String(missing['detail']).replace('no-such-job', decidedJobId));
  });

  it('is listed on the queues page for an ADMIN, and the review routes refuse the ANALYST outright (no VIEW_MRT)', async () => {
    const queues = await json<{ queues: Array<{ id: string }> }>(await get(world.sessions['ADMIN']!, '/api/console/v1/queues'));
    expect(queues.queues.map((q) => q.id)).toContain('child-safety');
    // The ANALYST has no VIEW_MRT: the review routes are refused outright.
    await expectErrorBody(await get(analyst, '/api/console/v1/queues'), 403, '/errors/forbidden');
  });
});
