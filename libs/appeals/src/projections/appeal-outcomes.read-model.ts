/**
 * The appeals report's read model (GET /api/console/v1/reports/appeals). Three collections:
 * - `appeal_actioned_actions`: per (item, action id), the rules and policies of every action
 *   callback Warden requested for the item under that action id (what an appeal of it is charged to);
 * - `appeal_outcomes`: per appeal, its UTC day, what it is charged to, and its outcome;
 * - `appeal_outcome_days`: per (UTC day of appealedAt, entry), the counts, and the day's total:
 *   what a report window reads for each whole day, so that a window costs one indexed read per
 *   day, however many appeals it holds.
 */
export const APPEAL_ACTIONED_ACTIONS = 'appeal_actioned_actions';
export const APPEAL_OUTCOMES = 'appeal_outcomes';
export const APPEAL_OUTCOME_DAYS = 'appeal_outcome_days';

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

const key = (...parts: string[]) => parts.map(encodeURIComponent).join(':');
export const actionedDocId = (orgId: string, item: { typeId: string; id: string }, actionId: string) => key(orgId, item.typeId, item.id, actionId);
export const outcomeDocId = (orgId: string, appealId: string) => key(orgId, appealId);
export const outcomeDayDocId = (orgId: string, day: string, entry: Pick<AppealOutcomeDayDoc, 'dimension' | 'id'>) => key(orgId, day, entry.dimension, entry.id);
