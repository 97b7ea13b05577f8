import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { CATALOG_PROJECTION, CHILD_SAFETY_QUEUE_ID, CHILD_SAFETY_QUEUE_NAME, GetEverEntitiesQuery } from '#warden/catalog';
import { type Clock, dayPlus, idProblem, invalidInput, type Period, periodDays, validPeriod } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { queueVisibleTo } from '#warden/review/contracts';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { addHistogram, emptySum, histogramPercentile } from '../../domain/histogram.js';
import { INSIGHTS_PROJECTION } from '../../projections/insights.projection.js';
import {
  ACTION_SOURCES,
  INSIGHTS_DAYS,
  INSIGHTS_QUEUE_DAYS,
  type InsightsDayDoc,
  type InsightsQueueDayDoc,
  type Outcomes,
} from '../../projections/insights.read-model.js';
import { GetInsightsQuery, type InsightsReport, type Outcome } from './get-insights.query.js';

/** What the charts label and check against: names, queues, caps (every entity ever defined: history may name archived ones). */
export interface InsightsCatalog {
  queues: ReadonlyMap<string, string>;
  policies: ReadonlyMap<string, string>;
  rules: ReadonlyMap<string, { name: string; maxDailyActions: number | null }>;
}

/** Insights' filters (period and queue) are refused under one title. */
const INVALID_FILTER = 'Invalid filter';

/**
 * Reads the period's buckets, two indexed range reads whatever the number of decisions behind
 * them (plus, per queue, the last snapshot before the period, which its depth starts from), and
 * shapes them into the charts' series.
 */
@QueryHandler(GetInsightsQuery)
export class GetInsightsHandler implements IQueryHandler<GetInsightsQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly queries: QueryBus,
  ) {}

  async execute(query: GetInsightsQuery): Promise<InsightsReport> {
    const now = this.clock.now();
    const period = validPeriod(query.from, query.to, now, INVALID_FILTER);
    // Any id the configuration accepts (idProblem, as the catalog checks it: `trust&safety`, `modération`), checked before it reaches a read.
    const queueProblem = query.queueId === undefined ? undefined : idProblem(query.queueId);
    if (queueProblem !== undefined) throw invalidInput({ title: INVALID_FILTER, pointer: '/queue', detail: `expected a queue id: ${queueProblem}` });
    await Promise.all([this.projections.catchUp(INSIGHTS_PROJECTION), this.projections.catchUp(CATALOG_PROJECTION)]);
    const range = { gte: period.from, lt: dayPlus(period.to, 1) };
    const [days, queueDays, catalog] = await Promise.all([
      this.readStore.find<InsightsDayDoc>(INSIGHTS_DAYS, { orgId: query.orgId, day: range }),
      this.readStore.find<InsightsQueueDayDoc>(INSIGHTS_QUEUE_DAYS, { orgId: query.orgId, day: range }),
      this.catalog(query.orgId),
    ]);
    const known = new Set([...catalog.queues.keys(), CHILD_SAFETY_QUEUE_ID, ...queueDays.map((d) => d.queueId)]);
    // Only the queues the viewer may see (as the queues page lists them): the child-safety queue is
    // in no chart without VIEW_CHILD_SAFETY_DATA, and asked for by id it is a queue the organization never had.
    for (const queueId of known) if (!queueVisibleTo(query.viewer.permissions, queueId)) known.delete(queueId);
    if (query.queueId !== undefined && !known.has(query.queueId))
      throw invalidInput({ title: INVALID_FILTER, pointer: '/queue', detail: `no queue ${query.queueId} in this organization` });
    const shown = query.queueId !== undefined ? [query.queueId] : [...known].sort();
    // The depth of a day without changes is the last snapshot's before it: the one before the period, per queue.
    const before = await Promise.all(
      shown.map(async (queueId) => {
        const [last] = await this.readStore.find<InsightsQueueDayDoc>(
          INSIGHTS_QUEUE_DAYS,
          { orgId: query.orgId, queueId, day: { lt: period.from } },
          { sort: [{ field: 'day', direction: 'desc' }], limit: 1 },
        );
        return last;
      }),
    );
    return summarize({
      period,
      now,
      queueId: query.queueId ?? null,
      queues: shown,
      days,
      queueDays: queueDays.filter((d) => shown.includes(d.queueId)),
      before: before.filter((d): d is InsightsQueueDayDoc => d !== undefined),
      catalog,
      known: [...known].sort(),
    });
  }

  private async catalog(orgId: string): Promise<InsightsCatalog> {
    const [queues, policies, rules] = await Promise.all([
      this.queries.execute(new GetEverEntitiesQuery(orgId, 'queue')),
      this.queries.execute(new GetEverEntitiesQuery(orgId, 'policy')),
      this.queries.execute(new GetEverEntitiesQuery(orgId, 'rule')),
    ]);
    return {
      // The built-in child-safety queue is named like the queues page names it, not by its id.
      queues: new Map([[CHILD_SAFETY_QUEUE_ID, CHILD_SAFETY_QUEUE_NAME], ...queues.map((q): [string, string] => [q.id, q.name])]),
      policies: new Map(policies.map((p) => [p.id, p.name])),
      rules: new Map(rules.map((r) => [r.id, { name: r.name, maxDailyActions: r.maxDailyActions }])),
    };
  }
}

export interface SummaryInput {
  period: Period;
  now: Date;
  queueId: string | null;
  /** The queues shown: the filter's, or every known one. */
  queues: string[];
  days: readonly InsightsDayDoc[];
  queueDays: readonly InsightsQueueDayDoc[];
  /** Per shown queue, its last snapshot before the period (if any). */
  before: readonly InsightsQueueDayDoc[];
  catalog: InsightsCatalog;
  known: string[];
}

const DAY_MS = 86_400_000;
const rate = (o: Outcomes) => (o.decided === 0 ? null : o.overturned / o.decided);
const sortedKeys = (keys: Iterable<string>) => [...new Set(keys)].sort();

/** The charts' series from the buckets (pure: the spec and the e2e test check it against the log). */
export function summarize(input: SummaryInput): InsightsReport {
  const { period, catalog } = input;
  const dayList = periodDays(period);
  const byDay = new Map(input.days.map((d) => [d.day, d]));
  const queueName = (id: string) => catalog.queues.get(id) ?? id;

  const actionsBySource = dayList.map((day) => {
    const actions = byDay.get(day)?.actions ?? {};
    return { day, rule: actions['rule'] ?? 0, moderator: actions['moderator'] ?? 0, threshold: actions['threshold'] ?? 0, executed: actions['executed'] ?? 0 };
  });

  const policyIds = sortedKeys(input.days.flatMap((d) => Object.keys(d.actionsByPolicy)));
  const actionsByPolicy = {
    policies: policyIds.map((id) => ({ id, name: id === '' ? '(no policy)' : (catalog.policies.get(id) ?? id) })),
    rows: dayList.map((day) => {
      const doc = byDay.get(day);
      return { day, counts: policyIds.map((id) => ACTION_SOURCES.reduce((sum, s) => sum + (doc?.actionsByPolicy[id]?.[s] ?? 0), 0)) };
    }),
  };

  const queueDepth = depthSeries(input, dayList);

  // Sums by queue and by day, in typed arrays, and moderators' counts per day: one pass over the
  // queue-day documents, allocating per queue and per day only (a year of five queues is 1,825 documents).
  const dayIndex = new Map(dayList.map((day, i) => [day, i]));
  const histogramsByQueue = new Map<string, Float64Array>();
  const decidedByQueue = new Map<string, number>();
  const histogramsByDay = dayList.map(() => emptySum());
  const decidedByDay = dayList.map(() => 0);
  const moderatorCounts = dayList.map(() => new Map<string, number>());
  for (const doc of input.queueDays) {
    const i = dayIndex.get(doc.day);
    if (i === undefined) continue;
    let sum = histogramsByQueue.get(doc.queueId);
    if (!sum) histogramsByQueue.set(doc.queueId, (sum = emptySum()));
    addHistogram(sum, doc.timeToDecision);
    addHistogram(histogramsByDay[i]!, doc.timeToDecision);
    decidedByQueue.set(doc.queueId, (decidedByQueue.get(doc.queueId) ?? 0) + doc.decided);
    decidedByDay[i]! += doc.decided;
    const counts = moderatorCounts[i]!;
    for (const userId in doc.byModerator) counts.set(userId, (counts.get(userId) ?? 0) + doc.byModerator[userId]!);
  }
  const timeToDecision = {
    byQueue: input.queues.map((queueId) => {
      const h = histogramsByQueue.get(queueId) ?? emptySum();
      return {
        queueId,
        name: queueName(queueId),
        decided: decidedByQueue.get(queueId) ?? 0,
        p50Seconds: histogramPercentile(h, 0.5),
        p90Seconds: histogramPercentile(h, 0.9),
      };
    }),
    byDay: dayList.map((day, i) => {
      const h = histogramsByDay[i]!;
      return { day, decided: decidedByDay[i]!, p50Seconds: histogramPercentile(h, 0.5), p90Seconds: histogramPercentile(h, 0.9) };
    }),
  };

  const moderators = sortedKeys(moderatorCounts.flatMap((m) => [...m.keys()]));
  const decisionsByModerator = {
    moderators,
    rows: dayList.map((day, i) => ({ day, counts: moderators.map((id) => moderatorCounts[i]!.get(id) ?? 0) })),
  };

  const outcomes = (pick: (d: InsightsDayDoc) => { [id: string]: Outcomes }, name: (id: string) => string): Outcome[] => {
    const totals = new Map<string, Outcomes>();
    for (const d of input.days)
      for (const [id, o] of Object.entries(pick(d))) {
        const t = totals.get(id) ?? totals.set(id, { decided: 0, overturned: 0 }).get(id)!;
        t.decided += o.decided;
        t.overturned += o.overturned;
      }
    return [...totals].map(([id, o]) => ({ id, name: name(id), ...o, overturnRate: rate(o) })).sort((a, b) => a.id.localeCompare(b.id));
  };
  const appealOverturns = {
    byPolicy: outcomes(
      (d) => d.appealsByPolicy,
      (id) => catalog.policies.get(id) ?? id,
    ),
    byRule: outcomes(
      (d) => d.appealsByRule,
      (id) => catalog.rules.get(id)?.name ?? id,
    ),
  };

  const automationRows = actionsBySource.map((r) => ({ day: r.day, automated: r.rule + r.threshold, human: r.moderator + r.executed }));
  const automated = automationRows.reduce((s, r) => s + r.automated, 0);
  const human = automationRows.reduce((s, r) => s + r.human, 0);

  const ruleIds = sortedKeys(input.days.flatMap((d) => Object.keys(d.rules)));
  const cap = (id: string) => catalog.rules.get(id)?.maxDailyActions ?? null;
  const ruleActions = {
    rules: ruleIds.map((id) => ({ id, name: catalog.rules.get(id)?.name ?? id, maxDailyActions: cap(id) })),
    rows: dayList.map((day) => ({
      day,
      counts: ruleIds.map((id) => {
        const r = byDay.get(day)?.rules[id];
        return (cap(id) !== null ? r?.counted : r?.acted) ?? 0;
      }),
    })),
  };

  return {
    from: period.from,
    to: period.to,
    queueId: input.queueId,
    days: dayList,
    queues: input.known.map((id) => ({ id, name: queueName(id) })),
    actionsBySource,
    actionsByPolicy,
    queueDepth,
    timeToDecision,
    decisionsByModerator,
    appealOverturns,
    automation: { automated, human, automatedShare: automated + human === 0 ? null : automated / (automated + human), rows: automationRows },
    ruleActions,
  };
}

/**
 * A queue's depth at the end of each day and the longest wait that day: the day's snapshot where
 * it changed, else the last one before it carried forward; the oldest job still open at the end
 * of a day has waited until the day's end (or now, for today).
 */
function depthSeries(input: SummaryInput, dayList: string[]): InsightsReport['queueDepth'] {
  const nowMs = input.now.getTime();
  const snapshots = new Map(input.queueDays.map((d) => [`${d.queueId}\u0000${d.day}`, d]));
  const carry = new Map<string, InsightsQueueDayDoc>(input.before.map((d) => [d.queueId, d]));
  const rows = dayList.map((day) => {
    const end = Math.min(nowMs, Date.parse(`${day}T00:00:00Z`) + DAY_MS);
    const depth: number[] = [];
    const oldestWaitSeconds: number[] = [];
    for (const queueId of input.queues) {
      const today = snapshots.get(`${queueId}\u0000${day}`);
      if (today) carry.set(queueId, today);
      const last = carry.get(queueId);
      const open = last?.oldestOpenedAtEnd ? Math.max(0, Math.round((end - Date.parse(last.oldestOpenedAtEnd)) / 1000)) : 0;
      depth.push(last?.depthEnd ?? 0);
      oldestWaitSeconds.push(Math.max(today?.maxWaitSeconds ?? 0, open));
    }
    return { day, depth, oldestWaitSeconds };
  });
  return { queues: input.queues.map((id) => ({ id, name: input.catalog.queues.get(id) ?? id })), rows };
}
