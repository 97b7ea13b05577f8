import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount, type LoggedEvent, loggedEvents, rawLog } from '../support/config-files.js';
import { type ReviewWorld, reviewOrgConfig, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Routing rules for the review organization: reports naming the spam policy or saying "junk mail"
 * go to `spam`; items whose text says "route-to-appeals" go to `appeals` (any request, reports
 * and rule enqueues alike).
 */
const ROUTING = `
routingRules:
  - id: spam-reports
    name: Spam reports
    queueId: spam
    itemTypeIds: [post]
    conditionSet:
      conjunction: OR
      conditions:
        - { input: { builtin: REPORTED_POLICY }, comparator: EQUALS, value: spam }
        - { input: { builtin: REPORT_REASON }, signal: { type: TEXT_CONTAINS, args: { terms: [junk mail] } }, comparator: EQUALS, value: true }
  - id: by-text
    name: By text
    queueId: appeals
    itemTypeIds: []
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [route-to-appeals] } }, comparator: EQUALS, value: true }
  - id: reported-users
    name: Users reported again
    queueId: spam
    itemTypeIds: [user]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { builtin: REPORT_COUNT }, comparator: GTE, value: 2 }
`;

const reporter = (id = 'r1') => ({ kind: 'user', id, typeId: 'user' });

function report(itemId: string, text: string, reason?: { policyId?: string; reason?: string; csam?: boolean }, extra: Record<string, unknown> = {}) {
  return {
    reporter: reporter(),
    reportedAt: '2026-11-23T12:00:00Z',
    reportedItem: { id: itemId, typeId: 'post', data: { text, author: { id: 'author-1', typeId: 'user' } } },
    ...(reason ? { reportedForReason: reason } : {}),
    ...extra,
  };
}

type JobRequest = { requestId: string; source: string; routedBy: { id: string } | null; report: { reportId: string; hasReason: boolean } | null };

describe('POST /api/v1/report: reports become routed review jobs', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url, ROUTING), ['ADMIN']);
  }, 60_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  async function submit(body: unknown): Promise<string> {
    const response = await world.api('POST', '/api/v1/report', body);
    expect(response.status).toBe(201);
    const { reportId } = (await response.json()) as { reportId: string };
    expect(reportId).toMatch(/^rpt_/);
    return reportId;
  }

  /** The job events of an item (opened, then merged), once `count` requests are in. */
  async function jobRequests(itemId: string, count: number): Promise<{ opened: LoggedEvent[]; requests: JobRequest[] }> {
    return waitFor(() => {
      const opened = loggedEvents(world.dataDir, 'ReviewJobOpened').filter((e) => (e.data['item'] as { id: string }).id === itemId);
      const jobIds = new Set(opened.map((e) => e.data['jobId']));
      const merged = loggedEvents(world.dataDir, 'ReviewJobMerged').filter((e) => jobIds.has(e.data['jobId']));
      const requests = [...opened, ...merged].map((e) => e.data['request'] as JobRequest);
      return requests.length >= count ? { opened, requests } : undefined;
    }, `${count} requests for ${itemId}`);
  }

  it('a report is answered 201 with a report id, and its job is in the default queue', async () => {
    const reportId = await submit(report('plain-1', 'something'));
    const { opened, requests } = await jobRequests('plain-1', 1);
    expect(opened).toHaveLength(1);
    expect(opened[0]!.data).toMatchObject({ queueId: 'default', item: { id: 'plain-1', typeId: 'post', typeName: 'Post' } });
    expect(requests[0]).toMatchObject({ requestId: reportId, source: 'REPORT', routedBy: null, report: { reportId, hasReason: false } });
    // The reported item was recorded as an item version with source `report`.
    const versions = loggedEvents(world.dataDir, 'ItemSubmitted').filter((e) => e.data['itemId'] === 'plain-1');
    expect(versions.map((e) => e.data['source'])).toEqual(['report']);
  });

  it('csam: true goes to child-safety, before any routing rule', async () => {
    await submit(report('csam-1', 'route-to-appeals', { policyId: 'spam', csam: true }));
    const { opened } = await jobRequests('csam-1', 1);
    expect(opened[0]!.data['queueId']).toBe('child-safety');
  });

  it('a routing rule on REPORTED_POLICY picks its queue, and the job can be claimed there', async () => {
    const reportId = await submit(report('spam-1', 'cheap pills', { policyId: 'spam' }));
    const { opened, requests } = await jobRequests('spam-1', 1);
    expect(opened[0]!.data['queueId']).toBe('spam');
    expect(requests[0]).toMatchObject({ requestId: reportId, routedBy: { id: 'spam-reports' } });
    expect((opened[0]!.data['request'] as { policies: unknown[] }).policies).toEqual([{ id: 'spam', name: 'Spam', penalty: 'LOW' }]);
    const claimed = await world.call(world.sessions['ADMIN']!, 'POST', '/api/console/v1/queues/spam/claim');
    expect(claimed.status).toBe(200);
    expect(((await claimed.json()) as { job: { item: { id: string } } }).job.item.id).toBe('spam-1');
  });

  it('a routing rule on REPORT_REASON picks its queue; the reason is not in the log in plaintext', async () => {
    const secret = 'junk mail from 0xC0FFEE-reason';
    await submit(
      report('reason-1', 'hello', { reason: secret }, { reportedItemThread: [{ id: 'ctx-1', typeId: 'post', data: { text: 'thread-secret-42' } }] }),
    );
    const { opened, requests } = await jobRequests('reason-1', 1);
    expect(opened[0]!.data['queueId']).toBe('spam');
    expect(requests[0]).toMatchObject({ routedBy: { id: 'spam-reports' }, report: { hasReason: true } });
    const log = rawLog(world.dataDir);
    expect(log).toContain('ReportSubmitted');
    expect(log).not.toContain('0xC0FFEE');
    expect(log).not.toContain('thread-secret-42');
  });

  it('three reports of one item make one job with three requests', async () => {
    const ids = [await submit(report('multi-1', 'x')), await submit({ ...report('multi-1', 'x'), reporter: reporter('r2') })];
    ids.push(await submit({ ...report('multi-1', 'x'), reporter: reporter('r3') }));
    const { opened, requests } = await jobRequests('multi-1', 3);
    expect(opened).toHaveLength(1);
    expect(requests.map((r) => r.requestId)).toEqual(ids);
    expect(requests.map((r) => r.source)).toEqual(['REPORT', 'REPORT', 'REPORT']);
  });

  it('REPORT_COUNT counts every report of the item, this one included', async () => {
    const userReport = (by: string) => ({
      ...report('x', 'x'),
      reporter: reporter(by),
      reportedItem: { id: 'troll-1', typeId: 'user', data: { name: 'Troll' } },
    });
    const first = await submit(userReport('r1'));
    await jobRequests('troll-1', 1);
    const second = await submit(userReport('r2'));
    const { opened } = await jobRequests('troll-1', 2);
    const queueOf = (reportId: string) => opened.find((e) => (e.data['request'] as JobRequest).requestId === reportId)?.data['queueId'];
    expect([queueOf(first), queueOf(second)]).toEqual(['default', 'spam']);
  });

  it("a rule's ENQUEUE_TO_MRT goes through the routing rules with source RULE_EXECUTION", async () => {
    const items = [
      { id: 'rule-1', typeId: 'post', data: { text: 'please review me' } },
      { id: 'rule-2', typeId: 'post', data: { text: 'please review me route-to-appeals' } },
    ];
    expect((await world.api('POST', '/api/v1/items/async', { items })).status).toBe(202);
    const plain = await jobRequests('rule-1', 1);
    expect(plain.opened[0]!.data['queueId']).toBe('default');
    expect(plain.requests[0]).toMatchObject({ source: 'RULE_EXECUTION', routedBy: null });
    const routed = await jobRequests('rule-2', 1);
    expect(routed.opened[0]!.data['queueId']).toBe('appeals');
    expect(routed.requests[0]).toMatchObject({ source: 'RULE_EXECUTION', routedBy: { id: 'by-text' } });
  });

  it('an Idempotency-Key makes a retry answer the same report id and record nothing more', async () => {
    const send = () =>
      fetch(`${world.warden.url}/api/v1/report`, {
        method: 'POST',
        headers: { 'x-api-key': world.key, 'content-type': 'application/json', 'idempotency-key': 'report-retry-1' },
        body: JSON.stringify(report('idem-1', 'x')),
      });
    const first = await send();
    const second = await send();
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(await second.json()).toEqual(await first.json());
    expect(loggedEvents(world.dataDir, 'ReportSubmitted').filter((e) => (e.data['reportedItem'] as { id: string }).id === 'idem-1')).toHaveLength(1);
  });

  it("the job view carries the newest reports' context within its budget, and says when older reports' is left out", async () => {
    // Six reports, each with a thread item of 600,000 characters: three fit the view's 2 Mi characters.
    const big = (i: number) => ({ id: `ctx-t${i}`, typeId: 'post', data: Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, `${i}`.repeat(150_000)])) });
    for (let i = 0; i < 6; i++) {
      await submit({ ...report('ctx-1', 'context'), reporter: reporter(`ctx-r${i}`), reportedItemThread: [big(i)] });
    }
    const { opened } = await jobRequests('ctx-1', 6);
    const jobId = opened[0]!.data['jobId'] as string;
    const view = await waitFor(async () => {
      const r = await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/jobs/${jobId}`);
      const job = (await r.json()) as { reportCount: number; contextComplete: boolean; thread: Array<{ id: string }> };
      return job.reportCount === 6 ? job : undefined;
    }, 'the job view with six reports');
    expect(view.contextComplete).toBe(false);
    expect(view.thread.map((t) => t.id).sort()).toEqual(['ctx-t3', 'ctx-t4', 'ctx-t5']);

    // A reason over 5,000 characters is refused, pointing at it.
    const long = await world.api('POST', '/api/v1/report', report('ctx-2', 'x', { reason: 'x'.repeat(5_001) }));
    expect(long.status).toBe(400);
    expect(((await long.json()) as { errors: Array<{ pointer: string }> }).errors.map((e) => e.pointer)).toEqual(['/reportedForReason/reason']);
  });

  it('bad input is a 400 with every pointer, and nothing is recorded', async () => {
    const recorded = () => eventCount(world.dataDir, "type IN ('ItemSubmitted', 'ReportSubmitted')");
    const before = recorded();
    const response = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'bot', id: 'r1', typeId: 'user' },
      reportedAt: '2026-11-23',
      reportedItem: { id: 'bad-1', typeId: 'post', data: {} },
      reportedForReason: { policyId: 'nope' },
      reportedItemThread: [
        { id: 't0', typeId: 'post', data: {} },
        { id: 't1', typeId: 'post', data: {} },
        { id: 't2', typeId: 'ghost', data: {} },
      ],
      reportedItemsInThread: [{ id: 'elsewhere', typeId: 'post' }],
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: Array<{ status: number; type: string[]; pointer: string }> };
    expect(body.errors.map((e) => e.pointer)).toEqual([
      '/reporter/kind',
      '/reportedAt',
      '/reportedItem/data/text',
      '/reportedForReason/policyId',
      '/reportedItemThread/2/typeId',
      '/reportedItemsInThread/0',
    ]);
    expect(body.errors[0]).toMatchObject({ status: 400, type: ['/errors/invalid-user-input'] });
    // Only the reported item wrong: nothing either (the item is checked before anything is written).
    const onlyItem = await world.api('POST', '/api/v1/report', { ...report('bad-2', 'x'), reportedItem: { id: 'bad-2', typeId: 'post', data: { text: 7 } } });
    expect(onlyItem.status).toBe(400);
    expect(((await onlyItem.json()) as { errors: Array<{ pointer: string }> }).errors.map((e) => e.pointer)).toEqual(['/reportedItem/data/text']);
    // A context item over the per-item size: 413 pointing at it.
    // (Five strings under the per-string limit, 1.25 MB together: over the 1 MiB per item.)
    const bulky = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((k) => [k, 'y'.repeat(250_000)]));
    const tooBig = await world.api('POST', '/api/v1/report', report('bad-3', 'x', undefined, { additionalItems: [{ id: 'a', typeId: 'post', data: bulky }] }));
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as { errors: Array<{ pointer: string }> }).errors.map((e) => e.pointer)).toEqual(['/additionalItems/0']);
    expect(recorded()).toBe(before);
    expect((await fetch(`${world.warden.url}/api/v1/report`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(
      401,
    );
  });
});
