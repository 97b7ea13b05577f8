/**
 * The appeals report's read model (GET /api/console/v1/reports/appeals), v2 (projection
 * `appeal-outcomes-v2`). Four collections:
 * - `appeal_outcomes_v2_actioned`: per (item, action id), the rules and policies of every action
 *   callback Warden requested for the item under that action id (what an appeal of it is charged to);
 * - `appeal_outcomes_v2`: per appeal, its UTC day, what it is charged to, and its outcome;
 * - `appeal_outcomes_v2_days`: per (UTC day of appealedAt, entry), the counts, and the day's total:
 *   what a report window reads for each whole day, so that a window costs one indexed read per
 *   day, however many appeals it holds;
 * - `appeal_outcomes_v2_buckets`: per hour, minute, second, 10 ms and millisecond of appealedAt
 *   that holds appeals, their counts per entry and their total: what the partial days at a
 *   window's ends are summed from (bucketRanges), a bounded read however many appeals they hold.
 *
 * v1 (projection `appeal-outcomes`) had the first three as `appeal_actioned_actions`,
 * `appeal_outcomes` and `appeal_outcome_days`, and no buckets: a partial day read every appeal of
 * the day. v2 is built from the log into collections of its own (docs/operations.md, "Upgrading:
 * the appeals report's buckets"), so that every appeal is charged as the log had it when it
 * arrived, as a rebuild charges it.
 */
export const APPEAL_ACTIONED_ACTIONS = 'appeal_outcomes_v2_actioned';
export const APPEAL_OUTCOMES = 'appeal_outcomes_v2';
export const APPEAL_OUTCOME_DAYS = 'appeal_outcomes_v2_days';
export const APPEAL_OUTCOME_BUCKETS = 'appeal_outcomes_v2_buckets';

/**
 * What an appeal counts for: each rule and each policy of the appealed callbacks; `moderators`
 * when a decision sent one of them (a moderator's, or POST /api/v1/actions: no rule was wrong);
 * `unattributed` when Warden sent no callback under the appealed actions that names a rule, a
 * policy or a decision (an item Warden never actioned, a strike threshold's action).
 */
export type OutcomeDimension = 'rule' | 'policy' | 'moderators' | 'unattributed';

export interface OutcomeEntry {
  dimension: OutcomeDimension;
  /** The rule's or policy's id; '' for the pseudo-entries. */
  id: string;
  name: string;
}

export type AppealActionedDoc = {
  orgId: string;
  itemTypeId: string;
  itemId: string;
  actionId: string;
  rules: Array<{ id: string; name: string }>;
  policies: Array<{ id: string; name: string }>;
  /** A decision (a moderator's or POST /api/v1/actions) sent a callback under this action. */
  decided: boolean;
};

export type AppealOutcomeDoc = {
  orgId: string;
  appealId: string;
  /** ISO 8601 in UTC. */
  appealedAt: string;
  /** UTC day of appealedAt (YYYY-MM-DD). */
  day: string;
  entries: OutcomeEntry[];
  decision: 'ACCEPT' | 'REJECT' | null;
};

export interface OutcomeCounts {
  received: number;
  decided: number;
  accepted: number;
  rejected: number;
}

/** A day's counts per entry, and its `total` (every appeal of the day once, whatever it counts for). */
export type AppealOutcomeDayDoc = Omit<OutcomeEntry, 'dimension'> & OutcomeCounts & { orgId: string; day: string; dimension: OutcomeDimension | 'total' };

/**
 * The buckets kept below the day, coarsest first, each size a multiple of the next: a range of
 * milliseconds within a day is covered by whole buckets of at most 23 hours, and 59 minutes, 59
 * seconds, 99 10-ms and 9 ms buckets at each end (bucketRanges). Milliseconds are appealedAt's
 * own precision (utcIsoOf), and a window's bounds are milliseconds too, so every bucket is wholly
 * inside a window or wholly outside it: the sums are exact.
 */
export const BUCKET_UNITS = [
  { unit: 'h', ms: 3_600_000 },
  { unit: 'm', ms: 60_000 },
  { unit: 's', ms: 1_000 },
  { unit: '10ms', ms: 10 },
  { unit: 'ms', ms: 1 },
] as const;

export type BucketUnit = (typeof BUCKET_UNITS)[number]['unit'];

/** The counts of the appeals of one bucket (appealedAt from `start`, for the unit's length): per entry, and their `total`. */
export type AppealOutcomeBucketDoc = {
  orgId: string;
  unit: BucketUnit;
  /** The bucket's first millisecond, ISO 8601 in UTC (toISOString). */
  start: string;
  total: OutcomeCounts;
  /** In the order first counted; `name` as the last appeal counted here named it (as a day's documents keep it). */
  entries: Array<OutcomeEntry & OutcomeCounts>;
};

/** A run of buckets of one unit, by `start`: from `gte` (inclusive) to `lt` (exclusive), epoch milliseconds. */
export interface BucketRange {
  readonly unit: BucketUnit;
  readonly gte: number;
  readonly lt: number;
}

/** The start of the bucket of `size` milliseconds that holds the instant `ms`. */
export const bucketStart = (ms: number, size: number): number => Math.floor(ms / size) * size;

/**
 * The buckets that exactly cover the milliseconds from `from` (inclusive) to `to` (exclusive)
 * within one UTC day, as runs in time order: the whole hours in between, and at each end the
 * whole minutes, seconds, 10 ms and milliseconds up to them. At most nine runs, each one
 * indexed find of at most 99 buckets: what reading a partial day costs, whatever it holds.
 */
export function bucketRanges(from: number, to: number, level = 0): BucketRange[] {
  if (from >= to) return [];
  const { unit, ms } = BUCKET_UNITS[level]!;
  if (ms === 1) return [{ unit, gte: from, lt: to }];
  const first = Math.ceil(from / ms) * ms;
  const last = bucketStart(to, ms);
  if (first >= last) return bucketRanges(from, to, level + 1);
  return [...bucketRanges(from, first, level + 1), { unit, gte: first, lt: last }, ...bucketRanges(last, to, level + 1)];
}

const key = (...parts: string[]) => parts.map(encodeURIComponent).join(':');
export const actionedDocId = (orgId: string, item: { typeId: string; id: string }, actionId: string) => key(orgId, item.typeId, item.id, actionId);
export const outcomeDocId = (orgId: string, appealId: string) => key(orgId, appealId);
export const outcomeDayDocId = (orgId: string, day: string, entry: Pick<AppealOutcomeDayDoc, 'dimension' | 'id'>) => key(orgId, day, entry.dimension, entry.id);
export const outcomeBucketDocId = (orgId: string, unit: BucketUnit, start: string) => key(orgId, unit, start);
