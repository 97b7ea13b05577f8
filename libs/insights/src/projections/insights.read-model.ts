import type { Histogram } from '../domain/histogram.js';

/**
 * The Insights read model (docs/insights.md, "Projections"): per-day buckets keyed by
 * (organization, day, dimension), so a chart over a year reads at most a year of small documents
 * whatever the number of decisions behind them, and the few per-entity documents the buckets are
 * computed from.
 */

/** Organization-wide, per UTC day: actions, appeal outcomes, rules' actions. */
export const INSIGHTS_DAYS = 'insights_days';
/** Per queue and UTC day: depth snapshot, time-to-decision histogram, decisions per moderator. */
export const INSIGHTS_QUEUE_DAYS = 'insights_queue_days';
/** Per queue: its open jobs now (the state the daily depth snapshots are taken from). */
export const INSIGHTS_QUEUES = 'insights_queues';
/** Per review job: its queue and when it opened (a decision names only the job). */
export const INSIGHTS_JOBS = 'insights_jobs';
/** Per actioned item: the rules and policies each published action named (an appeal's attribution). */
export const INSIGHTS_ITEMS = 'insights_items';
/** Per appeal: the rules and policies it is attributed to, and whether its outcome was counted. */
export const INSIGHTS_APPEALS = 'insights_appeals';

/** Where a published action came from: a rule, a moderator's decision, a strike threshold, the platform (POST /api/v1/actions). */
export const ACTION_SOURCES = ['rule', 'moderator', 'threshold', 'executed'] as const;
export type ActionSource = (typeof ACTION_SOURCES)[number];

export type Outcomes = { decided: number; overturned: number };

export interface InsightsDayDoc {
  orgId: string;
  day: string;
  /** Published actions by source, and by policy then source ('' for an action naming no policy). */
  actions: { [source: string]: number };
  actionsByPolicy: { [policyId: string]: { [source: string]: number } };
  /** Appeals decided this day, by the rules and policies they are attributed to. */
  appealsByRule: { [ruleId: string]: Outcomes };
  appealsByPolicy: { [policyId: string]: Outcomes };
  /**
   * Per rule: `counted`, the contents counted toward maxDailyActions (the day's cap stream's
   * length), and `acted`, the live evaluations in which it published an action (as the rules page
   * counts them, docs/rules.md, "The rules page").
   */
  rules: { [ruleId: string]: { counted: number; acted: number } };
}

export interface InsightsQueueDayDoc {
  orgId: string;
  queueId: string;
  day: string;
  opened: number;
  closed: number;
  /** Open jobs after the day's last change. */
  depthEnd: number;
  /** When the oldest job open after the day's last change opened (ISO 8601); null: none open. */
  oldestOpenedAtEnd: string | null;
  /** The longest wait seen at a change this day (the oldest job's age just before it closed), seconds. */
  maxWaitSeconds: number;
  /** Decisions by moderators (automatic closes left out), their time to decision, and who took them. */
  decided: number;
  timeToDecision: Histogram;
  byModerator: { [userId: string]: number };
}

export interface InsightsQueueDoc {
  orgId: string;
  queueId: string;
  depth: number;
  /** Open jobs by the minute they opened (epoch minutes): the oldest is the smallest key. */
  openByMinute: { [minute: string]: number };
  /** The smallest key of openByMinute (null: none open), kept so that most events need no scan of it. */
  oldestMinute?: number | null;
}

export interface InsightsJobDoc {
  orgId: string;
  queueId: string;
  openedAt: string;
  closed: boolean;
}

export interface InsightsItemDoc {
  orgId: string;
  actions: { [actionId: string]: { rules: string[]; policies: string[] } };
}

export interface InsightsAppealDoc {
  orgId: string;
  rules: string[];
  policies: string[];
  counted: boolean;
}

const key = (...parts: string[]) => parts.map(encodeURIComponent).join(':');
export const dayDocId = (orgId: string, day: string) => key(orgId, day);
export const queueDayDocId = (orgId: string, queueId: string, day: string) => key(orgId, queueId, day);
export const queueDocId = (orgId: string, queueId: string) => key(orgId, queueId);
export const jobDocId = (orgId: string, jobId: string) => key(orgId, jobId);
export const itemDocId = (orgId: string, typeId: string, itemId: string) => key(orgId, typeId, itemId);
export const appealDocId = (orgId: string, appealId: string) => key(orgId, appealId);

export const emptyDay = (orgId: string, day: string): InsightsDayDoc => ({
  orgId,
  day,
  actions: {},
  actionsByPolicy: {},
  appealsByRule: {},
  appealsByPolicy: {},
  rules: {},
});

export const emptyQueueDay = (orgId: string, queueId: string, day: string, queue: InsightsQueueDoc): InsightsQueueDayDoc => ({
  orgId,
  queueId,
  day,
  opened: 0,
  closed: 0,
  depthEnd: queue.depth,
  oldestOpenedAtEnd: oldestOpenedAt(queue),
  maxWaitSeconds: 0,
  decided: 0,
  timeToDecision: {},
  byModerator: {},
});

/** The smallest minute with an open job, found by a scan (only when the oldest minute empties). */
export function scanOldestMinute(queue: InsightsQueueDoc): number | null {
  let oldest: number | null = null;
  for (const [minute, n] of Object.entries(queue.openByMinute)) if (n > 0 && (oldest === null || Number(minute) < oldest)) oldest = Number(minute);
  return oldest;
}

/** The minute the queue's oldest open job opened, or null: as kept, or scanned for a document written before it was kept. */
export const oldestMinuteOf = (queue: InsightsQueueDoc): number | null => (queue.oldestMinute !== undefined ? queue.oldestMinute : scanOldestMinute(queue));

/** The opening time of the queue's oldest open job (to the minute), or null. */
export function oldestOpenedAt(queue: InsightsQueueDoc): string | null {
  const oldest = oldestMinuteOf(queue);
  return oldest === null ? null : new Date(oldest * 60_000).toISOString();
}
