import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewOrgConfigWithPillSpam, type ReviewWorld, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { transparencyConfig } from '../support/transparency-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { loggedEvents, writeConfig } from '../support/config-files.js';
import { runCli } from '../support/warden-process.js';

const ROOT = join(import.meta.dirname, '../..');
const schema = JSON.parse(readFileSync(join(ROOT, 'libs/transparency/schema/statement-of-reasons.schema.json'), 'utf8')) as object;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

interface ExportLine {
  kind: string;
  type: string;
  stream: string;
  stored: { data: Record<string, unknown>; metadata: Record<string, unknown> };
}

const SECRET_TEXT = 'cheap pills from Max Mustermann';

interface Claimed {
  job: { jobId: string; item: { id: string } };
  lock: { token: string };
}

describe('DSA statements of reasons and the transparency report', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const today = new Date().toISOString().slice(0, 10);
  const post = (id: string, text: string, author: string) => ({ id, typeId: 'post', data: { text, author: { id: author, typeId: 'user' } } });
  const report = (itemId: string, reporterId: string, typeId: string, policyId: string) => ({
    reporter: { kind: 'user', id: reporterId, typeId },
    reportedAt: new Date().toISOString(),
    reportedItem: post(itemId, 'some post', 'author-9'),
    reportedForReason: { policyId, reason: 'reported by Erika Musterfrau' },
  });

  /** Claims the next job of the queue through the console, once one is there. */
  const claim = (queue: string, role = 'MODERATOR') =>
    waitFor(async () => {
      const r = await world.call(world.sessions[role]!, 'POST', `/api/console/v1/queues/${queue}/claim`);
      return r.status === 200 ? ((await r.json()) as Claimed) : undefined;
    }, `a job in ${queue}`);
  const decide = async (claimed: Claimed, decision: Record<string, unknown>, role = 'MODERATOR') => {
    const r = await world.call(world.sessions[role]!, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, {
      lockToken: claimed.lock.token,
      ...decision,
    });
    expect(r.status, await r.text()).toBe(200);
  };
  const appeal = (appealId: string, itemId: string, author: string) => ({
    appealId,
    appealedBy: { id: author, typeId: 'user' },
    appealedAt: new Date().toISOString(),
    actionedItem: post(itemId, SECRET_TEXT, author),
    actionsTaken: ['remove'],
    appealReason: 'appeal by Max Mustermann',
    violatingPolicies: [{ id: 'spam' }],
  });

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(transparencyConfig(receiver.url), ['ANALYST', 'MODERATOR', 'ADMIN']);
    // A rule's action (automated detection and decision, own initiative), and a post a rule sends to
    // review: first in the default queue, before the reports' jobs.
    expect(
      (await world.api('POST', '/api/v1/items/async', { items: [post('p-rule', SECRET_TEXT, 'author-1'), post('p-review', 'please review me', 'author-5')] }))
        .status,
    ).toBe(202);
    // A moderator's decision in the console on the job the rule opened (automated detection, a person's decision).
    const reviewJob = await claim('default');
    expect(reviewJob.job.item.id).toBe('p-review');
    await decide(reviewJob, { type: 'CUSTOM_ACTION', actionIds: ['remove'], policyIds: ['spam'], reason: 'spam' });
    // Reports: one from a trusted flagger, one from an ordinary user; each item then actioned by the platform.
    expect((await world.api('POST', '/api/v1/report', report('p-flagged', 'flagger-1', 'flagger', 'violence'))).status).toBe(201);
    expect((await world.api('POST', '/api/v1/report', report('p-noticed', 'reporter-2', 'user', 'spam'))).status).toBe(201);
    await waitFor(() => loggedEvents(world.dataDir, 'ItemSubmitted').length >= 4, 'the reported items recorded');
    // Executed actions: remove under violence (3 strikes for author-9: the threshold's suspension follows) and under spam.
    expect((await world.api('POST', '/api/v1/actions', { actionId: 'remove', itemId: 'p-flagged', itemTypeId: 'post', policyIds: ['violence'] })).status).toBe(
      202,
    );
    expect((await world.api('POST', '/api/v1/actions', { actionId: 'remove', itemId: 'p-noticed', itemTypeId: 'post', policyIds: ['spam'] })).status).toBe(202);
    // Two appeals, decided in the console by another person than the moderator whose decision is appealed: one overturned (accepted), one rejected.
    expect((await world.api('POST', '/api/v1/report/appeal', appeal('ap-1', 'p-rule', 'author-1'))).status).toBe(204);
    expect((await world.api('POST', '/api/v1/report/appeal', appeal('ap-2', 'p-review', 'author-5'))).status).toBe(204);
    for (let i = 0; i < 2; i++) {
      const appealJob = await claim('appeals', 'ADMIN');
      await decide(appealJob, { type: appealJob.job.item.id === 'p-rule' ? 'ACCEPT_APPEAL' : 'REJECT_APPEAL' }, 'ADMIN');
    }
    await waitFor(() => loggedEvents(world.dataDir, 'AppealDecided').length >= 2, 'the two appeals decided');
    await waitFor(() => loggedEvents(world.dataDir, 'ActionCallbackRequested').length >= 5, 'the rule, decision, executed and threshold actions published');
  }, 180_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('writes one valid statement per restricting decision, with the right source and automated flags, and no personal data', async () => {
    const out = join(world.dataDir, 'sor.ndjson');
    const run = await runCli(['transparency', 'statements', '--org', 'rev', '--from', today, '--to', today, '--out', out], world.env);
    expect(run.code, run.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    const statements = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(statements).toHaveLength(5);
    for (const s of statements) expect(validate(s), JSON.stringify(validate.errors)).toBe(true);
    const byFacts = statements.map((s) => [
      s['category'],
      s['source_type'],
      s['automated_detection'],
      s['automated_decision'],
      s['decision_account'] ?? s['decision_visibility'],
    ]);
    expect(byFacts).toEqual(
      expect.arrayContaining([
        ['STATEMENT_CATEGORY_SCAMS_AND_FRAUD', 'SOURCE_VOLUNTARY', 'Yes', 'AUTOMATED_DECISION_FULLY', ['DECISION_VISIBILITY_CONTENT_REMOVED']],
        ['STATEMENT_CATEGORY_SCAMS_AND_FRAUD', 'SOURCE_VOLUNTARY', 'Yes', 'AUTOMATED_DECISION_NOT_AUTOMATED', ['DECISION_VISIBILITY_CONTENT_REMOVED']],
        ['STATEMENT_CATEGORY_VIOLENCE', 'SOURCE_TRUSTED_FLAGGER', 'No', 'AUTOMATED_DECISION_NOT_AUTOMATED', ['DECISION_VISIBILITY_CONTENT_REMOVED']],
        ['STATEMENT_CATEGORY_SCAMS_AND_FRAUD', 'SOURCE_ARTICLE_16', 'No', 'AUTOMATED_DECISION_NOT_AUTOMATED', ['DECISION_VISIBILITY_CONTENT_REMOVED']],
        ['STATEMENT_CATEGORY_VIOLENCE', 'SOURCE_VOLUNTARY', 'No', 'AUTOMATED_DECISION_FULLY', 'DECISION_ACCOUNT_SUSPENDED'],
      ]),
    );
    for (const personal of [
      'Mustermann',
      'Musterfrau',
      'moderator@rev.example',
      'admin@rev.example',
      'author-1',
      'author-5',
      'author-9',
      'flagger-1',
      'reporter-2',
      'p-rule',
      'p-review',
      'p-flagged',
    ])
      expect(text).not.toContain(personal);
  });

  it('serves the statements to the console, paged, and answers a bad period with 400 and a pointer', async () => {
    const analyst = world.sessions['ANALYST']!;
    const first = await world.call(analyst, 'GET', `/api/console/v1/transparency/statements?from=${today}&to=${today}&limit=3`);
    expect(first.status).toBe(200);
    const page = (await first.json()) as { statements: Array<{ statement: unknown; problems: string[]; redress: string[] }>; nextCursor: string | null };
    expect(page.statements).toHaveLength(3);
    expect(page.statements.every((s) => s.statement !== null && s.problems.length === 0 && s.redress.includes('INTERNAL_COMPLAINT_HANDLING'))).toBe(true);
    const second = (await (
      await world.call(analyst, 'GET', `/api/console/v1/transparency/statements?from=${today}&to=${today}&limit=3&cursor=${page.nextCursor}`)
    ).json()) as typeof page;
    expect(second.statements).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
    const bad = await world.call(analyst, 'GET', '/api/console/v1/transparency/report?from=yesterday');
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { errors: Array<{ pointer?: string }> };
    expect(body.errors.map((e) => e.pointer)).toEqual(['/from']);
    expect((await fetch(`${world.warden.url}/api/console/v1/transparency/statements`)).status).toBe(401);
    const cli = await runCli(['transparency', 'report', '--org', 'rev', '--from', '2026-13-01'], world.env);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('--from: expected a date, YYYY-MM-DD (UTC)');
  });

  it('apply --dry-run warns of every decision whose policy, action or item type lacks a DSA mapping, and writes nothing', async () => {
    const catalogEvents = () =>
      ['PolicyDefined', 'ActionDefined', 'ItemTypeDefined', 'RuleDefined', 'TransparencySettingsChanged'].map((t) => loggedEvents(world.dataDir, t).length);
    const before = catalogEvents();
    const mapped = await runCli(['apply', writeConfig(transparencyConfig(receiver.url)), '--dry-run'], world.env);
    expect(mapped.code, mapped.stderr).toBe(0);
    expect(mapped.stdout.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
      'warning: item type flagger has no dsa mapping: statements about its items lack a content type',
    ]);
    // The same organization without its mapping, transparency still on: each gap is named.
    const unmapped = `${reviewOrgConfigWithPillSpam(receiver.url)}transparency:\n  territorialScope: [EEA]\n`;
    const dry = await runCli(['apply', writeConfig(unmapped), '--dry-run'], world.env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Dry run: nothing is written.');
    expect(
      dry.stdout
        .split('\n')
        .filter((l) => l.startsWith('warning:'))
        .sort(),
    ).toEqual([
      'warning: action remove has no dsa mapping: decisions taking it get no statement of reasons (map its restriction, or dsa: false)',
      'warning: item type post has no dsa mapping: statements about its items lack a content type',
      'warning: item type user has no dsa mapping: statements about its items lack a content type',
      'warning: policy spam has no dsa mapping: statements of decisions under it lack a category and ground',
      'warning: policy violence has no dsa mapping: statements of decisions under it lack a category and ground',
      "warning: rule pills names no policy with a dsa mapping: its decisions' statements lack a category and ground",
    ]);
    expect(catalogEvents()).toEqual(before);
  });

  it('reports figures equal to those computed independently from the audit export', async () => {
    const exportFile = join(world.dataDir, 'audit.ndjson');
    expect((await runCli(['audit', 'export', '--org', 'rev', '--out', exportFile], world.env)).code).toBe(0);
    const events = readFileSync(exportFile, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as ExportLine)
      .filter((l) => l.kind === 'event');
    // Independently: reports by policy and reporter type; each published action's source from the item's earlier, unanswered reports.
    const category: Record<string, string> = { spam: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD', violence: 'STATEMENT_CATEGORY_VIOLENCE' };
    const byCategory = new Map<string, number>();
    const byReporterType = new Map<string, number>();
    const open = new Map<string, string[]>();
    const sources = new Map<string, number>();
    let suspensions = 0;
    const ruleJobs = new Set<string>();
    const appealedAt = new Map<string, number>();
    const complaints = { received: 0, decided: 0, overturned: 0, durations: [] as number[] };
    const inc = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    for (const e of events) {
      const d = e.stored.data;
      if (e.type === 'ReportSubmitted') {
        const item = d['reportedItem'] as { id: string; typeId: string };
        const type = (d['reporter'] as { typeId: string }).typeId;
        inc(byCategory, category[String(d['policyId'])]!);
        inc(byReporterType, type);
        open.set(`${item.typeId}:${item.id}`, [...(open.get(`${item.typeId}:${item.id}`) ?? []), type]);
      }
      if ((e.type === 'ReviewJobOpened' || e.type === 'ReviewJobMerged') && (d['request'] as { source: string }).source === 'RULE_EXECUTION')
        ruleJobs.add(e.stream);
      if (e.type === 'ActionCallbackRequested') {
        const item = d['item'] as { id: string; typeId: string };
        const reporters = open.get(`${item.typeId}:${item.id}`);
        open.delete(`${item.typeId}:${item.id}`);
        const trigger = String(d['trigger'] ?? 'rule');
        const source = !reporters ? 'own-initiative' : reporters.includes('flagger') ? 'trusted-flagger' : 'notice';
        // Detected by a rule: its own action, or a moderator's decision on a job a rule sent the item to (the decision is in the job's stream).
        const detected = trigger === 'rule' || (trigger === 'decision' && ruleJobs.has(e.stream));
        inc(sources, `${source}|${detected}|${trigger === 'rule' || trigger === 'strike-threshold'}`);
        if ((d['action'] as { id: string }).id === 'suspend') suspensions++;
      }
      if (e.type === 'AppealSubmitted') {
        complaints.received++;
        appealedAt.set(String(d['appealId']), Date.parse(String(d['appealedAt'])));
      }
      if (e.type === 'AppealDecided') {
        complaints.decided++;
        if (d['decision'] === 'ACCEPT') complaints.overturned++;
        complaints.durations.push(Math.floor((Date.parse(String(d['decidedAt'])) - appealedAt.get(String(d['appealId']))!) / 1000));
      }
    }
    const run = await runCli(['transparency', 'report', '--org', 'rev', '--from', today, '--to', today, '--format', 'json'], world.env);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      notices: { total: number; byCategory: Array<{ category: string; count: number }> };
      reportsByReporterType: Array<{ reporterType: string; trustedFlagger: boolean; count: number }>;
      actions: { total: number; rows: Array<{ source: string; automatedDetection: boolean; automatedDecision: boolean; count: number }> };
      noticeToAction: { count: number };
      complaints: { received: number; decided: number; overturned: number; medianDurationSeconds: number | null };
      accountSuspensions: number;
    };
    expect(report.notices.total).toBe(2);
    expect(new Map(report.notices.byCategory.map((c) => [c.category, c.count]))).toEqual(byCategory);
    expect(new Map(report.reportsByReporterType.map((r) => [r.reporterType, r.count]))).toEqual(byReporterType);
    expect(report.reportsByReporterType.find((r) => r.reporterType === 'flagger')?.trustedFlagger).toBe(true);
    const rows = new Map<string, number>();
    for (const r of report.actions.rows)
      rows.set(
        `${r.source}|${r.automatedDetection}|${r.automatedDecision}`,
        (rows.get(`${r.source}|${r.automatedDetection}|${r.automatedDecision}`) ?? 0) + r.count,
      );
    expect(rows).toEqual(sources);
    expect(report.actions.total).toBe(5);
    expect(report.noticeToAction.count).toBe(2);
    // Nearest-rank median of whole seconds (each under 1,000 s here, so the report's 3-digit rounding keeps them).
    const sorted = complaints.durations.sort((a, b) => a - b);
    expect(report.complaints).toEqual({
      received: complaints.received,
      decided: complaints.decided,
      overturned: complaints.overturned,
      medianDurationSeconds: sorted[Math.ceil(sorted.length / 2) - 1],
    });
    expect([complaints.received, complaints.decided, complaints.overturned]).toEqual([2, 2, 1]);
    expect(report.accountSuspensions).toBe(suspensions);
    expect(suspensions).toBe(1);
    const csv = await runCli(['transparency', 'report', '--org', 'rev', '--from', today, '--to', today, '--format', 'csv'], world.env);
    // The header the CLI's help names (transparency-commands.ts), then one figure a row.
    expect(csv.stdout.split('\n')[0]).toBe('section,policy,category,source,automated_detection,automated_decision,reporter_type,figure,value');
    expect(csv.stdout.split('\n')).toContain('accounts,,,,,,,suspensions,1');
  });
});
