import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { type Clock, dayPlus, validPeriod } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { percentile } from '../../domain/durations.js';
import { mainPolicy, type StatementCatalog } from '../../domain/statement-of-reasons.js';
import { TRANSPARENCY_PROJECTION } from '../../projections/transparency.projection.js';
import { TRANSPARENCY_DAYS, type TransparencyDayDoc } from '../../projections/transparency.read-model.js';
import { statementCatalog } from '../statement-catalog.js';
import { type ReportSource, type TransparencyReport, TransparencyReportQuery } from './transparency-report.query.js';

const add = (into: Map<string, number>, key: string, n: number) => into.set(key, (into.get(key) ?? 0) + n);
const addHistogram = (into: Map<number, number>, from: { [bucket: string]: number }) => {
  for (const [bucket, n] of Object.entries(from)) into.set(Number(bucket), (into.get(Number(bucket)) ?? 0) + n);
};
const byCount = <T extends { count: number }>(rows: T[], tie: (row: T) => string) => rows.sort((a, b) => b.count - a.count || tie(a).localeCompare(tie(b)));

/**
 * Sums the period's daily counters (one indexed read for the whole period), then maps them with
 * the mapping in force: what each policy's category is, which reporter types are trusted
 * flaggers, which actions restrict and how.
 */
@QueryHandler(TransparencyReportQuery)
export class TransparencyReportHandler implements IQueryHandler<TransparencyReportQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly queries: QueryBus,
  ) {}

  async execute(query: TransparencyReportQuery): Promise<TransparencyReport> {
    const period = validPeriod(query.from, query.to, this.clock.now());
    await this.projections.catchUp(TRANSPARENCY_PROJECTION);
    const [days, catalog] = await Promise.all([
      this.readStore.find<TransparencyDayDoc>(TRANSPARENCY_DAYS, { orgId: query.orgId, day: { gte: period.from, lt: dayPlus(period.to, 1) } }),
      statementCatalog(this.queries, this.projections, query.orgId),
    ]);
    return { ...period, ...summarize(days, catalog) };
  }
}

/** The report's figures from daily counters and the mapping (pure: the e2e test checks it against the audit export). */
export function summarize(days: readonly TransparencyDayDoc[], catalog: StatementCatalog): Omit<TransparencyReport, 'from' | 'to'> {
  const noticesByPolicy = new Map<string, number>();
  const reporterTypes = new Map<string, number>();
  const actions = new Map<string, number>();
  const noticeToAction = new Map<number, number>();
  const appealDuration = new Map<number, number>();
  const complaints = { received: 0, decided: 0, overturned: 0 };
  for (const day of days) {
    for (const [k, n] of Object.entries(day.noticesByPolicy)) add(noticesByPolicy, k, n);
    for (const [k, n] of Object.entries(day.noticesByReporterType)) add(reporterTypes, k, n);
    for (const [k, n] of Object.entries(day.actions)) add(actions, k, n);
    addHistogram(noticeToAction, day.noticeToAction);
    addHistogram(appealDuration, day.appealDuration);
    complaints.received += day.appealsReceived;
    complaints.decided += day.appealsDecided;
    complaints.overturned += day.appealsOverturned;
  }
  const trusted = new Set(catalog.transparency.trustedFlaggers);

  const categories = new Map<string, number>();
  for (const [policyId, n] of noticesByPolicy) {
    const category = policyId === '' ? 'STATEMENT_CATEGORY_NOT_SPECIFIED_NOTICE' : (catalog.policies.get(policyId)?.dsa?.category ?? 'UNMAPPED');
    add(categories, category, n);
  }

  const rows = new Map<
    string,
    { policyId: string | null; category: string | null; source: ReportSource; automatedDetection: boolean; automatedDecision: boolean; count: number }
  >();
  let suspensions = 0;
  let terminations = 0;
  for (const [key, n] of actions) {
    const [actionId, policyList, reporters, detection, decision] = JSON.parse(key) as [string, string, string, number, number];
    const restriction = catalog.actions.get(actionId)?.dsa;
    if (restriction === false) continue;
    const policy = mainPolicy({ actionId, policyIds: policyList === '' ? [] : policyList.split(',') }, catalog);
    const source: ReportSource = reporters === '' ? 'own-initiative' : reporters.split(',').some((t) => trusted.has(t)) ? 'trusted-flagger' : 'notice';
    const row = {
      policyId: policy?.id ?? null,
      category: policy?.dsa?.category ?? null,
      source,
      automatedDetection: detection === 1,
      automatedDecision: decision === 1,
    };
    const rowKey = JSON.stringify(row);
    const current = rows.get(rowKey) ?? { ...row, count: 0 };
    current.count += n;
    rows.set(rowKey, current);
    if (restriction?.decisionAccount === 'DECISION_ACCOUNT_SUSPENDED') suspensions += n;
    if (restriction?.decisionAccount === 'DECISION_ACCOUNT_TERMINATED') terminations += n;
  }
  const actionRows = byCount([...rows.values()], (r) => JSON.stringify(r));
  const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
  return {
    notices: {
      total: sum(noticesByPolicy.values()),
      byCategory: byCount(
        [...categories].map(([category, count]) => ({ category, count })),
        (r) => r.category,
      ),
    },
    reportsByReporterType: byCount(
      [...reporterTypes].map(([reporterType, count]) => ({ reporterType, trustedFlagger: trusted.has(reporterType), count })),
      (r) => r.reporterType,
    ),
    actions: { total: sum(actionRows.map((r) => r.count)), rows: actionRows },
    noticeToAction: { count: sum(noticeToAction.values()), medianSeconds: percentile(noticeToAction, 0.5), p90Seconds: percentile(noticeToAction, 0.9) },
    complaints: { ...complaints, medianDurationSeconds: percentile(appealDuration, 0.5) },
    accountSuspensions: suspensions,
    accountTerminations: terminations,
  };
}
