/**
 * The transparency module's read model (docs/transparency.md). Facts only, no personal data and
 * nothing mapped: the DSA mapping in force is applied when a statement or report is read.
 * - `transparency_items`: per item, when Warden first saw it and the notices (reports) not yet
 *   answered by an action;
 * - `transparency_statements`: per published action (its delivery id), what a statement of
 *   reasons states about it;
 * - `transparency_appeals`: per appeal, when it came and whether it was decided;
 * - `transparency_days`: per organization and UTC day, the counters of the transparency report, so
 *   that a report costs one read per day of its period, however many decisions it holds.
 */
export const TRANSPARENCY_ITEMS = 'transparency_items';
export const TRANSPARENCY_STATEMENTS = 'transparency_statements';
export const TRANSPARENCY_APPEALS = 'transparency_appeals';
export const TRANSPARENCY_DAYS = 'transparency_days';
/**
 * Per review job, its item (an IGNORE decision answers the item's notices without an action) and
 * whether a rule sent it to review (a moderator's decision on it was detected by automated means:
 * the decision's callback names no rule).
 */
export const TRANSPARENCY_JOBS = 'transparency_jobs';

export type TransparencyJobDoc = { orgId: string; itemTypeId: string; itemId: string; ruleDetected?: boolean };
export const jobDocId = (orgId: string, jobId: string) => [orgId, jobId].map(encodeURIComponent).join(':');

/** Reports of the item no action has answered yet: the first one's time, and the reporters' types. */
export interface OpenNotices {
  firstAt: string;
  reporterTypes: string[];
}

export type TransparencyItemDoc = {
  orgId: string;
  /** The item's first ItemSubmitted (the content's date); null when only reports named it so far. */
  firstSeenAt: string | null;
  notices: OpenNotices | null;
};

export type ActionTrigger = 'rule' | 'decision' | 'strike-threshold' | 'post-actions';

/** What a statement of reasons states about one published action. */
export type StatementFactsDoc = {
  orgId: string;
  puid: string;
  deliveryId: string;
  trigger: ActionTrigger;
  item: { id: string; typeId: string };
  actionId: string;
  policyIds: string[];
  /** ISO 8601 UTC: the action's publication (the decision). */
  decidedAt: string;
  /** UTC day of decidedAt. */
  day: string;
  /** UTC day the content was first seen (ItemSubmitted); the decision's day when Warden never saw it. */
  contentDate: string;
  /** The notices the action answered; null: own initiative. */
  notice: OpenNotices | null;
  /** A rule (or hash match) found the content. */
  automatedDetection: boolean;
  /** No person took the decision: a rule's action, a strike threshold. */
  automatedDecision: boolean;
  /** The submission batch it went in (docs/transparency.md, "Submission"); null (or absent, on facts recorded before): not sent. */
  batchId?: string | null;
};

/** Per submission batch: its state for the statements it holds, and when it is due (a restart reschedules from here). */
export const TRANSPARENCY_BATCHES = 'transparency_batches';

export type TransparencyBatchDoc = {
  orgId: string;
  batchId: string;
  status: 'pending' | 'retrying' | 'submitted' | 'rejected' | 'abandoned';
  statements: number;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  submittedAt: string | null;
  /** PUIDs the Database reported it had already (an earlier attempt went through unrecorded). */
  alreadyInDatabase: string[];
  /** Revision of the batch's stream this reflects. */
  revision: number;
};
export const batchDocId = (orgId: string, batchId: string) => key(orgId, batchId);

export type TransparencyAppealDoc = { orgId: string; appealedAt: string; decided: boolean };

/**
 * One day's counters. Keys of `actions`: JSON arrays [actionId, the action's policy ids comma-joined, reporter
 * types of the notices answered, comma-joined ('' for own initiative; '*' for a notice whose
 * reporter types are unknown), automated detection 0/1, automated decision 0/1].
 * Durations are histograms of seconds rounded down to 3 significant digits (durationBucket).
 */
export type TransparencyDayDoc = {
  orgId: string;
  day: string;
  noticesByPolicy: { [policyId: string]: number };
  noticesByReporterType: { [typeId: string]: number };
  actions: { [key: string]: number };
  noticeToAction: { [seconds: string]: number };
  appealsReceived: number;
  appealsDecided: number;
  appealsOverturned: number;
  appealDuration: { [seconds: string]: number };
};

const key = (...parts: string[]) => parts.map(encodeURIComponent).join(':');
export const itemDocId = (orgId: string, typeId: string, itemId: string) => key(orgId, typeId, itemId);
export const statementDocId = (orgId: string, deliveryId: string) => key(orgId, deliveryId);
export const appealDocId = (orgId: string, appealId: string) => key(orgId, appealId);
export const dayDocId = (orgId: string, day: string) => key(orgId, day);

export const emptyDay = (orgId: string, day: string): TransparencyDayDoc => ({
  orgId,
  day,
  noticesByPolicy: {},
  noticesByReporterType: {},
  actions: {},
  noticeToAction: {},
  appealsReceived: 0,
  appealsDecided: 0,
  appealsOverturned: 0,
  appealDuration: {},
});
