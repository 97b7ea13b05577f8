import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../support/config-files.js';
import { expectErrorBody } from '../support/error-body.js';
import {
  authoredPost as post,
  claimNext,
  type ClaimedJob,
  decideClaimed,
  REVIEW_PASSWORD,
  reviewOrgConfig,
  type ReviewWorld,
  type Session,
  startReceiver,
  startReviewWorld,
  withAutoRemoveRule,
} from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, consoleUserCommand, runCli, runCliBatch, startWarden } from '../support/warden-process.js';

/**
 * Insights over a real server (docs/insights.md): the figures of GET /api/console/v1/insights
 * equal those counted independently from the audit export of the history this test makes; a
 * redelivery of every event to the projection changes no bucket; bad filters answer the standard
 * error body with a pointer; another organization's history never shows.
 */

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
interface ExportLine {
  kind: string;
  type: string;
  stream: string;
  stored: { data: Record<string, unknown>; metadata: Record<string, unknown> };
}
interface Report {
  from: string;
  to: string;
  days: string[];
  queues: Array<{ id: string; name: string }>;
  actionsBySource: Array<{ day: string; rule: number; moderator: number; threshold: number; executed: number }>;
  actionsByPolicy: { policies: Array<{ id: string }>; rows: Array<{ day: string; counts: number[] }> };
  queueDepth: { queues: Array<{ id: string }>; rows: Array<{ day: string; depth: number[]; oldestWaitSeconds: number[] }> };
  timeToDecision: { byQueue: Array<{ queueId: string; decided: number; p50Seconds: number | null; p90Seconds: number | null }> };
  decisionsByModerator: { moderators: string[]; rows: Array<{ day: string; counts: number[] }> };
  appealOverturns: { byPolicy: Array<{ id: string; decided: number; overturned: number }>; byRule: Array<{ id: string; decided: number; overturned: number }> };
  automation: { automated: number; human: number };
  ruleActions: { rules: Array<{ id: string; maxDailyActions: number | null }>; rows: Array<{ day: string; counts: number[] }> };
}

/** With a capped rule that removes posts saying "auto-remove" under the violence policy. */
const config = (url: string, org = 'rev') =>
  withAutoRemoveRule(reviewOrgConfig(url), 50)
    .replace('org: { id: rev, name: Review Org }', `org: { id: ${org}, name: Org ${org} }`)
    // A queue id with characters beyond [A-Za-z0-9_.:-], as the configuration accepts them.
    .replace(
      '  - { id: appeals, name: Appeals, isAppealsDefault: true }\n',
      '  - { id: appeals, name: Appeals, isAppealsDefault: true }\n  - { id: "trust&safety", name: Trust and safety }\n',
    );

const today = () => new Date().toISOString().slice(0, 10);

describe('insights', () => {
  let world: ReviewWorld;
  let receiver: Receiver;
  let base: string;
  let otherAdmin: Session;
  let otherKey: string;

  const call = (session: Session | null, method: string, path: string, body?: unknown) =>
    fetch(base + path, {
      method,
      headers: {
        ...(session ? { cookie: session.cookie, 'x-csrf-token': session.csrfToken } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const insights = async (session: Session, query = `?from=${today()}&to=${today()}`) => {
    const r = await call(session, 'GET', `/api/console/v1/insights${query}`);
    expect(r.status, await r.clone().text()).toBe(200);
    return (await r.json()) as Report;
  };
  const claim = (session: Session, queue: string) => claimNext(world, session, queue);
  const decide = (session: Session, claimed: ClaimedJob, body: Record<string, unknown>) => decideClaimed(world, session, claimed, body);

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(config(receiver.url), ['MODERATOR', 'MODERATOR_MANAGER', 'ADMIN']);
    base = world.warden.url;
    // Another organization, with a history of its own.
    // One CLI process for its set-up (test/support/warden-process.ts, runCliBatch).
    const [, otherMade] = await runCliBatch(world.env, [
      ['apply', writeConfig(config(receiver.url, 'other'))],
      ['api-key', 'create', '--org', 'other'],
      consoleUserCommand('other', 'admin@other.example', REVIEW_PASSWORD, ['ADMIN']),
    ]);
    otherKey = otherMade!.at(-1)!;
    otherAdmin = await consoleLogin(base, 'admin@other.example', REVIEW_PASSWORD);
    const other = await fetch(`${base}/api/v1/items/async`, {
      method: 'POST',
      headers: { 'x-api-key': otherKey, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [post('o-1', 'auto-remove me'), post('o-2', 'auto-remove me'), post('o-3', 'please review me')] }),
    });
    expect(other.status).toBe(202);

    // Rev: three rule removals, three jobs (one decided with a removal, one ignored, one left open), an executed action, an overturned appeal.
    const sent = await world.api('POST', '/api/v1/items/async', {
      items: [
        post('r-1', 'auto-remove me'),
        post('r-2', 'auto-remove this'),
        post('r-3', 'auto-remove that'),
        post('m-1', 'please review me'),
        post('m-2', 'please review me too'),
        post('m-3', 'review me later'),
      ],
    });
    expect(sent.status).toBe(202);
    const moderator = world.sessions['MODERATOR']!;
    const manager = world.sessions['MODERATOR_MANAGER']!;
    await waitFor(async () => {
      const r = await call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/jobs?queueId=default&state=PENDING');
      return ((await r.json()) as { jobs: unknown[] }).jobs.length === 3 || undefined;
    }, 'the three review jobs');
    await decide(moderator, (await waitFor(() => claim(moderator, 'default'), 'a job for the moderator'))!, {
      type: 'CUSTOM_ACTION',
      actionIds: ['remove'],
      policyIds: ['spam'],
      reason: 'spam',
    });
    await decide(manager, (await waitFor(() => claim(manager, 'default'), 'a job for the manager'))!, { type: 'IGNORE' });
    const executed = await world.api('POST', '/api/v1/actions', {
      actionId: 'remove',
      itemId: 'x-1',
      itemTypeId: 'post',
      policyIds: ['spam'],
      actorId: 'staff-1',
    });
    expect(executed.status, await executed.clone().text()).toBe(202);

    await waitFor(
      () => receiver.received.filter((c) => c.path === '/hooks/remove').length >= 5 + 2 || undefined,
      'the removal callbacks of both organizations',
    );
    const appeal = await world.api('POST', '/api/v1/report/appeal', {
      appealId: 'ap-1',
      appealedBy: { id: 'author-of-r-1', typeId: 'user' },
      appealedAt: new Date().toISOString(),
      actionedItem: post('r-1', 'auto-remove me'),
      actionsTaken: ['remove'],
      appealReason: 'satire',
      violatingPolicies: [{ id: 'violence' }],
    });
    expect(appeal.status).toBe(204);
    const admin = world.sessions['ADMIN']!;
    await decide(admin, (await waitFor(() => claim(admin, 'appeals'), 'the appeal job'))!, { type: 'ACCEPT_APPEAL' });
  }, 180_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  /** What the export says, counted here without any of the module's code. */
  async function countedFromTheLog() {
    const exportFile = join(world.dataDir, `audit-${Date.now()}.ndjson`);
    const exported = await runCli(['audit', 'export', '--org', 'rev', '--out', exportFile], world.env);
    expect(exported.code, exported.stderr).toBe(0);
    const events = readFileSync(exportFile, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as ExportLine)
      .filter((l) => l.kind === 'event');
    const sources = { rule: 0, moderator: 0, threshold: 0, executed: 0 };
    const byPolicy = new Map<string, number>();
    const open = new Map<string, Set<string>>();
    const decisions = new Map<string, number>();
    const byModerator = new Map<string, number>();
    let overturned = 0;
    const trigger: Record<string, keyof typeof sources> = { rule: 'rule', decision: 'moderator', 'strike-threshold': 'threshold', 'post-actions': 'executed' };
    const jobQueue = new Map<string, string>();
    for (const e of events) {
      const d = e.stored.data;
      if (e.type === 'ActionCallbackRequested') {
        sources[trigger[String(d['trigger'] ?? 'rule')]!] += 1;
        for (const p of d['policies'] as Array<{ id: string }>) byPolicy.set(p.id, (byPolicy.get(p.id) ?? 0) + 1);
      }
      if (e.type === 'ReviewJobOpened') {
        const queue = String(d['queueId']);
        jobQueue.set(String(d['jobId']), queue);
        (open.get(queue) ?? open.set(queue, new Set()).get(queue)!).add(String(d['jobId']));
      }
      if (e.type === 'ReviewJobDecided') {
        const queue = jobQueue.get(String(d['jobId']))!;
        open.get(queue)!.delete(String(d['jobId']));
        const actor = d['actor'] as { userId: string } | null;
        if (actor && d['type'] !== 'AUTOMATIC_CLOSE') {
          decisions.set(queue, (decisions.get(queue) ?? 0) + 1);
          byModerator.set(actor.userId, (byModerator.get(actor.userId) ?? 0) + 1);
        }
      }
      if (e.type === 'AppealDecided' && d['decision'] === 'ACCEPT') overturned += 1;
    }
    const counted = events.filter((e) => e.type === 'RuleDailyActionCounted' && e.stored.data['ruleId'] === 'auto-remove').length;
    expect(counted, [...new Set(events.map((e) => e.type))].join()).toBeGreaterThan(0);
    return { sources, byPolicy, open, decisions, byModerator, overturned, counted };
  }

  it('draws figures equal to the counts of the audit export', async () => {
    const manager = world.sessions['MODERATOR_MANAGER']!;
    const report = await waitFor(async () => {
      const r = await insights(manager);
      return r.appealOverturns.byRule.length > 0 && r.actionsBySource[0]!.executed === 1 ? r : undefined;
    }, 'the appeal outcome and the executed action in the buckets');
    const log = await countedFromTheLog();
    expect(log.sources).toEqual({ rule: 3, moderator: 1, threshold: 0, executed: 1 });
    const [row] = report.actionsBySource;
    expect({ rule: row!.rule, moderator: row!.moderator, threshold: row!.threshold, executed: row!.executed }).toEqual(log.sources);
    const policyCounts = Object.fromEntries(report.actionsByPolicy.policies.map((p, i) => [p.id, report.actionsByPolicy.rows[0]!.counts[i]]));
    expect(policyCounts).toEqual(Object.fromEntries(log.byPolicy));

    const depth = Object.fromEntries(report.queueDepth.queues.map((q, i) => [q.id, report.queueDepth.rows[0]!.depth[i]]));
    for (const [queue, jobs] of log.open) expect(depth[queue], queue).toBe(jobs.size);
    expect(depth['default']).toBe(1);
    // The built-in child-safety queue by its name, as the queues page shows it.
    expect(report.queues.find((q) => q.id === 'child-safety')?.name).toBe('Child safety');
    const waiting = report.queueDepth.rows[0]!.oldestWaitSeconds[report.queueDepth.queues.findIndex((q) => q.id === 'default')]!;
    expect(waiting).toBeGreaterThanOrEqual(0);

    const decided = Object.fromEntries(report.timeToDecision.byQueue.map((q) => [q.queueId, q.decided]));
    for (const [queue, n] of log.decisions) expect(decided[queue], queue).toBe(n);
    const defaultTimes = report.timeToDecision.byQueue.find((q) => q.queueId === 'default')!;
    expect(defaultTimes.p50Seconds).not.toBeNull();
    expect(defaultTimes.p90Seconds!).toBeGreaterThanOrEqual(defaultTimes.p50Seconds!);

    const perModerator = Object.fromEntries(report.decisionsByModerator.moderators.map((m, i) => [m, report.decisionsByModerator.rows[0]!.counts[i]]));
    expect(perModerator).toEqual(Object.fromEntries(log.byModerator));
    expect(perModerator[world.userIds['MODERATOR']!]).toBe(1);
    expect(perModerator[world.userIds['MODERATOR_MANAGER']!]).toBe(1);

    expect(report.appealOverturns.byRule).toEqual([{ id: 'auto-remove', name: 'Auto remove', decided: 1, overturned: log.overturned, overturnRate: 1 }]);
    expect(report.appealOverturns.byPolicy).toEqual([{ id: 'violence', name: 'Violence', decided: 1, overturned: 1, overturnRate: 1 }]);
    expect(report.automation).toMatchObject({ automated: log.sources.rule + log.sources.threshold, human: log.sources.moderator + log.sources.executed });
    const rule = report.ruleActions.rules.findIndex((r) => r.id === 'auto-remove');
    expect(report.ruleActions.rules[rule]).toMatchObject({ maxDailyActions: 50 });
    expect(report.ruleActions.rows[0]!.counts[rule]).toBe(log.counted);
    expect(log.counted).toBe(3);

    // The queue filter narrows the queue charts to the one queue.
    const filtered = await insights(manager, `?from=${today()}&to=${today()}&queue=appeals`);
    expect(filtered.queueDepth.queues.map((q) => q.id)).toEqual(['appeals']);
    expect(filtered.timeToDecision.byQueue).toMatchObject([{ queueId: 'appeals', decided: 1 }]);
    expect(filtered.decisionsByModerator.moderators).toEqual([world.userIds['ADMIN']]);
    // Any queue the configuration accepted can be chosen, as the console's list offers it.
    expect(report.queues.map((q) => q.id)).toContain('trust&safety');
    const other = await insights(manager, `?from=${today()}&to=${today()}&queue=${encodeURIComponent('trust&safety')}`);
    expect(other.queueDepth.queues.map((q) => q.id)).toEqual(['trust&safety']);
  });

  it("never shows another organization's history", async () => {
    const other = await waitFor(async () => {
      const r = await insights(otherAdmin);
      return r.actionsBySource[0]!.rule === 2 ? r : undefined;
    }, "the other organization's two rule actions");
    expect(other.actionsBySource[0]).toMatchObject({ moderator: 0, executed: 0 });
    expect(other.decisionsByModerator.moderators).toEqual([]);
    expect(other.appealOverturns).toEqual({ byPolicy: [], byRule: [] });
    const rev = await insights(world.sessions['ADMIN']!);
    expect(rev.actionsBySource[0]!.rule).toBe(3);
  });

  it('answers 400 with a pointer for bad filters, 403 to a moderator, 401 without a session', async () => {
    const admin = world.sessions['ADMIN']!;
    const bad = async (query: string, pointers: string[]) => {
      const r = await call(admin, 'GET', `/api/console/v1/insights${query}`);
      await expectErrorBody(r.clone(), 400, '/errors/invalid-user-input', pointers[0]);
      const body = (await r.json()) as { errors: Array<{ pointer?: string }> };
      expect(body.errors.map((e) => e.pointer)).toEqual(pointers);
    };
    await bad('?from=yesterday&to=2026-13-01', ['/from', '/to']);
    await bad('?from=2026-03-03&to=2026-03-02', ['/from']);
    await bad('?from=2024-01-01&to=2026-01-01', ['/from']);
    await bad('?queue=no-such-queue', ['/queue']);
    await bad('?queue=%20bad%20id', ['/queue']);
    await expectErrorBody(await call(world.sessions['MODERATOR']!, 'GET', '/api/console/v1/insights'), 403, '/errors/forbidden');
    await expectErrorBody(await call(null, 'GET', '/api/console/v1/insights'), 401, '/errors/unauthorized');
  });

  it('changes no bucket when every event is delivered to the projection again', async () => {
    const admin = world.sessions['ADMIN']!;
    // Today's oldest wait grows with the clock: everything else must stay as it was.
    const figures = (r: Report) => ({ ...r, queueDepth: { ...r.queueDepth, rows: r.queueDepth.rows.map((row) => row.depth) } });
    const buckets = () => {
      const db = new Database(join(world.dataDir, 'read-models.db'), { readonly: true });
      try {
        return ['insights_days', 'insights_queue_days'].flatMap(
          (c) => db.prepare(`SELECT id, doc FROM "rm/${c}" ORDER BY id`).all() as Array<{ id: string; doc: string }>,
        );
      } finally {
        db.close();
      }
    };
    const before = figures(await insights(admin));
    const stored = buckets();
    expect(stored.length).toBeGreaterThan(3);
    expect(await world.warden.stop()).toBe(0);
    // The checkpoint set back, as a crash between the buckets' writes and its move would leave it.
    const db = new Database(join(world.dataDir, 'read-models.db'));
    const moved = db.prepare("UPDATE projection_checkpoints SET position = 0 WHERE projection = 'insights'").run();
    db.close();
    expect(moved.changes).toBe(1);
    const restarted = await startWarden(world.env);
    (world as { warden: typeof restarted }).warden = restarted;
    base = restarted.url;
    expect(figures(await insights(admin))).toEqual(before);
    expect(buckets()).toEqual(stored);
  });
});
