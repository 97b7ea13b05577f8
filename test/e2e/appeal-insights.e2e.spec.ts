import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authoredPost as post,
  claimNext,
  type ReviewWorld,
  REVIEW_PASSWORD,
  reviewOrgConfig,
  type Session,
  startReceiver,
  startReviewWorld,
  withAutoRemoveRule,
} from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, consoleUserCommand, orgWithKeyCommand, runCliBatch } from '../support/warden-process.js';

/**
 * The appeal part of an appeal job's view, and the appeals report, over a real server: real
 * action callbacks (a rule's and a moderator's) to a real receiver, appeals of them, decisions.
 */

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
interface ErrorBody {
  errors: Array<{ status: number; type: string[]; pointer?: string }>;
}

const appealBody = (appealId: string, itemId: string, appealedAt: string, actionsTaken = ['remove']) => ({
  appealId,
  appealedBy: { id: `author-of-${itemId}`, typeId: 'user' },
  appealedAt,
  actionedItem: post(itemId, 'as the platform has it'),
  actionsTaken,
  appealReason: `it was satire (${appealId})`,
  violatingPolicies: [{ id: 'spam' }],
});

describe('appeal insights: the appeal job view and the appeals report', () => {
  let world: ReviewWorld;
  let receiver: Receiver;
  let otherAdmin: Session;
  let decisionJobId: string;
  const appealJobs = new Map<string, string>();

  // A rule that removes posts saying "auto-remove" under the violence policy; appeals go to the appeals queue.
  const config = (url: string) => withAutoRemoveRule(reviewOrgConfig(url));

  const callbackFor = (itemId: string) =>
    receiver.received.find((c) => c.path === '/hooks/remove' && (JSON.parse(c.body) as { item: { id: string } }).item.id === itemId);

  const claimAppeal = () => claimNext(world, world.sessions['ADMIN']!, 'appeals');

  const report = (session: Session, query: string) => world.call(session, 'GET', `/api/console/v1/reports/appeals${query}`);

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(config(receiver.url), ['MODERATOR', 'ADMIN', 'ANALYST']);
    // One CLI process for its set-up (test/support/warden-process.ts, runCliBatch).
    await runCliBatch(world.env, [orgWithKeyCommand('other'), consoleUserCommand('other', 'admin@other.example', REVIEW_PASSWORD, ['ADMIN'])]);
    otherAdmin = await consoleLogin(world.warden.url, 'admin@other.example', REVIEW_PASSWORD);

    // Two rule removals (auto-remove, violence) and one moderator removal (spam).
    const sent = await world.api('POST', '/api/v1/items/async', {
      items: [post('p-rule-1', 'auto-remove me'), post('p-rule-2', 'auto-remove me too'), post('p-mod', 'please review me')],
    });
    expect(sent.status).toBe(202);
    const moderator = world.sessions['MODERATOR']!;
    const claimed = await waitFor(() => claimNext(world, moderator, 'default'), 'the moderator job');
    expect(claimed.job.item.id).toBe('p-mod');
    decisionJobId = claimed.job.jobId;
    const decided = await world.call(moderator, 'POST', `/api/console/v1/jobs/${decisionJobId}/decision`, {
      lockToken: claimed.lock.token,
      type: 'CUSTOM_ACTION',
      actionIds: ['remove'],
      policyIds: ['spam'],
      reason: 'spam',
    });
    expect(decided.status).toBe(200);
    await waitFor(() => ['p-rule-1', 'p-rule-2', 'p-mod'].every((id) => callbackFor(id)) || undefined, 'the three action callbacks');

    // Three appeals on 2 March, one (of an item Warden never actioned) on 5 March.
    for (const [appealId, itemId, at] of [
      ['ins-1', 'p-rule-1', '2026-03-02T09:30:00Z'],
      ['ins-2', 'p-rule-2', '2026-03-02T09:40:00Z'],
      ['ins-3', 'p-mod', '2026-03-02T11:00:00Z'],
      ['ins-4', 'p-never', '2026-03-05T12:00:00Z'],
    ] as const) {
      const r = await world.api('POST', '/api/v1/report/appeal', appealBody(appealId, itemId, at, appealId === 'ins-3' ? ['remove', 'warn'] : ['remove']));
      expect(r.status).toBe(204);
    }
    await waitFor(async () => {
      const r = await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/jobs?queueId=appeals&state=PENDING');
      const jobs = ((await r.json()) as { jobs: Array<{ jobId: string; item: { id: string } }> }).jobs;
      for (const j of jobs) appealJobs.set(j.item.id, j.jobId);
      return appealJobs.size === 4 || undefined;
    }, 'the four appeal jobs');
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it("shows an appeal job's appeal: reason, policies, the callbacks of each appealed action with their decision, the appellant's strikes", async () => {
    const jobId = appealJobs.get('p-mod')!;
    const view = await waitFor(async () => {
      const r = await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/jobs/${jobId}`);
      expect(r.status).toBe(200);
      const body = (await r.json()) as { appeal: { actionsTaken: Array<{ callbacks: Array<{ delivery: { status: string } }> }> } };
      return body.appeal.actionsTaken[0]?.callbacks[0]?.delivery.status === 'delivered' ? body : undefined;
    }, 'the view with the delivered callback');
    expect(view.appeal).toEqual({
      appealId: 'ins-3',
      appealedAt: '2026-03-02T11:00:00Z',
      appellant: { id: 'author-of-p-mod', typeId: 'user' },
      reason: 'it was satire (ins-3)',
      violatingPolicies: [{ id: 'spam', name: 'Spam' }],
      actionsTaken: [
        {
          actionId: 'remove',
          actionName: 'Remove',
          callbacks: [
            {
              deliveryId: expect.any(String),
              trigger: 'decision',
              policies: [{ id: 'spam', name: 'Spam' }],
              rules: [],
              decision: { decisionId: expect.any(String), jobId: decisionJobId, moderatorId: world.userIds['MODERATOR'], decidedAt: expect.any(String) },
              requestedAt: expect.any(String),
              delivery: { status: 'delivered', attempts: 1, deliveredAt: expect.any(String), deadLetteredAt: null },
            },
          ],
        },
        // An action id Warden never sent for this item: named, with nothing done under it.
        { actionId: 'warn', actionName: null, callbacks: [] },
      ],
      strikes: {
        count: 1,
        windowDays: null,
        history: [
          {
            strikes: 1,
            countAfter: 1,
            actionId: 'remove',
            policyIds: ['spam'],
            item: { id: 'p-mod', typeId: 'post' },
            appliedAt: expect.any(String),
            counting: true,
          },
        ],
      },
    });

    const ruleView = (await (await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/jobs/${appealJobs.get('p-rule-1')}`)).json()) as {
      appeal: { actionsTaken: Array<{ callbacks: Array<{ trigger: string; rules: unknown; policies: unknown; decision: unknown }> }> };
    };
    expect(ruleView.appeal.actionsTaken[0]!.callbacks).toMatchObject([
      { trigger: 'rule', rules: [{ id: 'auto-remove', name: 'Auto remove' }], policies: [{ id: 'violence', name: 'Violence' }], decision: null },
    ]);

    // Any other job: no appeal part.
    const plain = (await (await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/jobs/${decisionJobId}`)).json()) as { appeal: unknown };
    expect(plain.appeal).toBeNull();
  });

  it('counts appeals per rule and policy with their overturn rate, over whole and partial days', async () => {
    const outcomes: Record<string, 'ACCEPT_APPEAL' | 'REJECT_APPEAL'> = {
      'ins-1': 'ACCEPT_APPEAL',
      'ins-2': 'REJECT_APPEAL',
      'ins-3': 'ACCEPT_APPEAL',
      'ins-4': 'REJECT_APPEAL',
    };
    for (let decided = 0; decided < 4; decided++) {
      const claimed = await waitFor(claimAppeal, 'an appeal job to claim');
      const type = outcomes[claimed.job.appeal!.appealId]!;
      const r = await world.call(world.sessions['ADMIN']!, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, {
        lockToken: claimed.lock.token,
        type,
      });
      expect(r.status).toBe(200);
    }
    const analyst = world.sessions['ANALYST']!;
    const counts = (received: number, accepted: number, rejected: number) => ({
      received,
      decided: accepted + rejected,
      accepted,
      rejected,
      overturnRate: accepted + rejected > 0 ? accepted / (accepted + rejected) : null,
    });
    const all = await waitFor(async () => {
      const r = await report(analyst, '?from=2026-03-01T12:00:00Z&to=2026-03-05T13:00:00Z');
      expect(r.status).toBe(200);
      const body = (await r.json()) as { total: { decided: number } };
      return body.total.decided === 4 ? body : undefined;
    }, 'the four decisions in the report');
    expect(all).toEqual({
      from: '2026-03-01T12:00:00.000Z',
      to: '2026-03-05T13:00:00.000Z',
      total: counts(4, 2, 2),
      rules: [{ id: 'auto-remove', name: 'Auto remove', ...counts(2, 1, 1) }],
      policies: [
        { id: 'violence', name: 'Violence', ...counts(2, 1, 1) },
        { id: 'spam', name: 'Spam', ...counts(1, 1, 0) },
      ],
      moderators: counts(1, 1, 0),
      unattributed: counts(1, 0, 1),
    });

    // A whole day (2 March) and a partial one (09:35 to 11:00 of it: ins-2 and ins-3).
    const day = (await (await report(analyst, '?from=2026-03-02T00:00:00Z&to=2026-03-02T23:59:59.999Z')).json()) as { total: unknown; unattributed: unknown };
    expect(day).toMatchObject({ total: counts(3, 2, 1), unattributed: counts(0, 0, 0) });
    const part = (await (await report(world.sessions['ADMIN']!, '?from=2026-03-02T09:35:00Z&to=2026-03-02T11:00:00Z')).json()) as Record<string, unknown>;
    expect(part).toMatchObject({
      total: counts(2, 1, 1),
      rules: [{ id: 'auto-remove', ...counts(1, 0, 1) }],
      policies: [
        { id: 'spam', ...counts(1, 1, 0) },
        { id: 'violence', ...counts(1, 0, 1) },
      ],
      moderators: counts(1, 1, 0),
    });

    // Another organization sees none of it.
    const other = (await (await report(otherAdmin, '?from=2026-03-01T12:00:00Z&to=2026-03-05T13:00:00Z')).json()) as Record<string, unknown>;
    expect(other).toMatchObject({ total: counts(0, 0, 0), rules: [], policies: [] });
  });

  it('answers 400 with pointers for a malformed or reversed window, 403 to a moderator', async () => {
    const admin = world.sessions['ADMIN']!;
    const pointers = async (query: string) => {
      const r = await report(admin, query);
      expect(r.status).toBe(400);
      return ((await r.json()) as ErrorBody).errors.map((e) => e.pointer);
    };
    expect(await pointers('?from=yesterday&to=2026-03-02')).toEqual(['/from', '/to']);
    expect(await pointers('?from=2026-03-03T00:00:00Z&to=2026-03-02T00:00:00Z')).toEqual(['/from']);
    expect(await pointers('?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z')).toEqual(['/from']);
    const forbidden = await report(world.sessions['MODERATOR']!, '');
    expect(forbidden.status).toBe(403);
    expect(((await forbidden.json()) as ErrorBody).errors[0]?.type).toContain('/errors/forbidden');
  });
});
