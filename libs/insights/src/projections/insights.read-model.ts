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
/** Per queue: its open jobs now (the state the daily depth snapshots are taken from): their number, and the root of their tree by minute. */
export const INSIGHTS_QUEUES = 'insights_queues';
/** Per queue, level and span of minutes: a node of the tree that counts the queue's open jobs by the minute they opened. */
export const INSIGHTS_QUEUE_MINUTES = 'insights_queue_minutes';
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

/** Positive counts by key (a key whose count falls to 0 is removed). */
export type Counts = { [key: string]: number };

/**
 * A queue's open jobs are counted by the minute they opened (epoch minutes, `minute`) in a tree of
 * small documents, so that an event reads and writes the same few documents however old the
 * queue's backlog is (a queue's documents once held every open minute: a year of a report a minute
 * was 525,600 keys, read and rewritten at each job opened or decided). A node of level `l` (0 to
 * MINUTE_LEVELS - 1) spans MINUTE_FANOUT^(l+1) minutes, `index` = floor(minute / its span), and
 * counts its open jobs by its children's spans, floor(minute / MINUTE_FANOUT^l): at level 0 by
 * minute. The root is the queue's document (`open`, by floor(minute / MINUTE_FANOUT^MINUTE_LEVELS),
 * about 2,000 years each: one key for any date from 1970 to 4011). Every count is the number of the
 * queue's open jobs under it, changed by one per job opened or closed: a document's new state
 * depends on its own state only, which is what makes a redelivered event leave it alone (see the
 * projection). So a document holds at most MINUTE_FANOUT keys, an event changes one per level,
 * and the oldest open minute is found walking down the smallest keys, one document per level.
 */
export const MINUTE_FANOUT = 64;
export const MINUTE_LEVELS = 5;

export interface InsightsQueueDoc {
  orgId: string;
  queueId: string;
  /** Open jobs. */
  depth: number;
  /** The tree's root: open jobs by floor(minute / MINUTE_FANOUT^MINUTE_LEVELS). */
  open: Counts;
}

/**
 * The queue's document as releases before the tree wrote it: every open minute in one map. The
 * projection moves such a document's minutes into the tree the first time an event changes the
 * queue, and writes it anew without them.
 */
export interface LegacyInsightsQueueDoc {
  orgId: string;
  queueId: string;
  depth: number;
  openByMinute: { [minute: string]: number };
  oldestMinute?: number | null;
}

/** A node of a queue's tree of open minutes (see MINUTE_FANOUT). */
export interface InsightsQueueMinutesDoc {
  orgId: string;
  queueId: string;
  level: number;
  index: number;
  /** Open jobs by child span (at level 0, by minute); never empty: a node left without any is deleted. */
  counts: Counts;
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
export const queueMinutesDocId = (orgId: string, queueId: string, level: number, index: number) => key(orgId, queueId, String(level), String(index));
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

/** A day's first snapshot of a queue: the depth and oldest open job as the day's first change found them. */
export const emptyQueueDay = (orgId: string, queueId: string, day: string, depth: number, oldestOpenedAt: string | null): InsightsQueueDayDoc => ({
  orgId,
  queueId,
  day,
  opened: 0,
  closed: 0,
  depthEnd: depth,
  oldestOpenedAtEnd: oldestOpenedAt,
  maxWaitSeconds: 0,
  decided: 0,
  timeToDecision: {},
  byModerator: {},
});

/** The start of an epoch minute, ISO 8601 (an oldest open job's opening, to the minute), or null. */
export const minuteStart = (minute: number | null): string | null => (minute === null ? null : new Date(minute * 60_000).toISOString());
