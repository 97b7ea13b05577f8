import type { ActionCallbackRequested, ActionEnvironment } from '#warden/callbacks/contracts';
import type { Penalty } from '#warden/catalog/contracts';
import type { Reporter } from '#warden/ingestion/contracts';
import type { DomainEvent } from '#warden/kernel';

/** Where a review job came from (docs/review.md, "The job view", `source`). */
export const ENQUEUE_SOURCES = ['REPORT', 'RULE_EXECUTION', 'POST_ACTIONS', 'MRT_JOB'] as const;
export type EnqueueSource = (typeof ENQUEUE_SOURCES)[number];

/** The decision types (the two appeal ones belong to appeal jobs; docs/review.md, "Decision types"). */
export const DECISION_TYPES = [
  'IGNORE',
  'CUSTOM_ACTION',
  'SUBMIT_CHILD_SAFETY_REPORT',
  'ACCEPT_APPEAL',
  'REJECT_APPEAL',
  'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE',
  'AUTOMATIC_CLOSE',
] as const;
export type DecisionType = (typeof DECISION_TYPES)[number];

export interface JobItem {
  id: string;
  typeId: string;
  /** The item type's display name when the job opened (sent as `typeName` in callbacks). */
  typeName: string;
}

/** Who reported (ingestion's, the module that records reports). */
export type { Reporter };

/**
 * One user report as a job keeps it: every reporter and every reason (the peer keeps only the
 * newest). The reason itself is personal data: it travels in the event's top-level `reasons`,
 * sealed under the reporter's key, so that counts and sources stay readable after an erasure.
 */
export interface JobReport {
  reportId: string;
  reporter: Reporter;
  reportedAt: string;
  hasReason: boolean;
  policyId: string | null;
  csam: boolean;
}

/** Report id → what the reporter wrote. Sealed (personal data) under the event's `subject`. */
export type ReportReasons = { [reportId: string]: string };

export interface JobPolicy {
  id: string;
  name: string;
  penalty: Penalty;
}

/**
 * One request to review the item, as merged into a job: a report, a rule's enqueue action, an
 * executed action, or a job recreated from another. `requestId` is its idempotency key: the report
 * id, the `jobId` a ReviewEnqueueRequested carries (the rules engine derives it per content and
 * action), or the id of the decision that recreated the job.
 */
export interface EnqueueRequest {
  requestId: string;
  source: EnqueueSource;
  /** When the request was made (the report's submission, the rule's evaluation). */
  at: string;
  /** The item version the request is about. */
  version: number;
  report: JobReport | null;
  /** RULE_EXECUTION and POST_ACTIONS: the action and what triggered it. */
  action: { id: string; rules: Array<{ id: string; name: string }> } | null;
  /** Policies the request names: the reported policy, the rule's policies. */
  policies: JobPolicy[];
  /** The routing rule that picked the queue; null: the csam flag, the default queue, or a target chosen by a moderator. */
  routedBy: { id: string; name: string } | null;
  /** MRT_JOB: the job this one was recreated from. */
  fromJobId: string | null;
  /** An appeal's request (its job opens once per appeal id); missing (events from before appeals) or null: no appeal. */
  appeal?: JobAppeal | null;
}

/**
 * The appeal a job reviews (POST /api/v1/report/appeal). The appellant and their reason stay in
 * the appeal's own stream, sealed under their key; the job keeps ids only.
 */
export interface JobAppeal {
  appealId: string;
  actionsTaken: string[];
  violatingPolicyIds: string[];
  /** Moderators who took the appealed decision: the job is never offered to them (a manager may still assign it). */
  excludedModerators: string[];
}

/**
 * MRT_JOB of a job with more requests than a move copies (JOB_REQUESTS_COPIED): its requests stay in
 * its own stream, named here instead of copied into one event (which past a few thousand reports
 * would pass what one append to KurrentDB may hold), with what the queues' read model counts. The
 * job it names is closed (a move decided it), so its requests are final; readers follow the name
 * (JobReports), each request taking that job as its `fromJobId` when it has none.
 */
export interface CarriedJob {
  jobId: string;
  /** Its requests, with those it carried itself. */
  requests: number;
  /** Of those, the reports. */
  reports: number;
  /** Of those, the reports flagged `csam` (absent in moves recorded before it was counted: none known). */
  csamReports?: number;
  sources: EnqueueSource[];
  /** The policies its requests named, once each. */
  policies: JobPolicy[];
  /** The latest item version its requests named. */
  version: number;
  /** Whether a rule's request is among them (a statement of reasons says the decision was detected by a rule). */
  ruleDetected: boolean;
}

/**
 * Opens job `generation` of an item in a queue. Job ids are derived from (organization, item,
 * queue, generation), so "one open job per item and queue" is decided by the job streams
 * themselves: a request finds the first generation that is open or not yet created.
 */
export type ReviewJobOpened = DomainEvent<
  'ReviewJobOpened',
  {
    jobId: string;
    queueId: string;
    generation: number;
    item: JobItem;
    request: EnqueueRequest;
    /**
     * MRT_JOB: the requests of the job it was recreated from (history kept); their reasons stay in
     * that job's stream, under their reporters' keys (`fromJobId`).
     */
    carried: EnqueueRequest[];
    /** MRT_JOB of a job with many requests: named instead of `carried` (missing: none). Its requests come first. */
    carriedFrom?: CarriedJob;
    openedAt: string;
    reasons: ReportReasons;
    /** Whose key seals `reasons` (the reporter's); null when there is none. */
    subject: string | null;
  }
>;

/** A further request for an open job (another report of the same item, say). */
export type ReviewJobMerged = DomainEvent<
  'ReviewJobMerged',
  {
    jobId: string;
    request: EnqueueRequest;
    /** MRT_JOB into a queue where the item already had an open job: the moved job's requests. */
    carried?: EnqueueRequest[];
    /** As `carried`, for a moved job with many requests (CarriedJob); they come before `carried`. */
    carriedFrom?: CarriedJob;
    mergedAt: string;
    reasons: ReportReasons;
    subject: string | null;
  }
>;

/**
 * The item version a moderator was shown and decided on, and the digest of its content (canonical
 * JSON of its data and creator, SHA-256, base64url: the rules engine's content digest, so a
 * decision and a rule action on the same content carry the same digest). `contentDigest` is null
 * when the version's data was unreadable (erased) when recorded.
 */
export interface ItemVersionSeen {
  version: number;
  contentDigest: string | null;
}

/**
 * A moderator holds the job until `expiresAt`. The lock token itself is only ever returned to the
 * moderator; the log keeps its SHA-256.
 */
export type ReviewJobClaimed = DomainEvent<
  'ReviewJobClaimed',
  {
    jobId: string;
    moderatorId: string;
    lockTokenHash: string;
    claimedAt: string;
    expiresAt: string;
    /**
     * The item version the claim showed (the latest Warden had): what the moderator's decision
     * is about unless they name another. Absent on claims recorded before it was.
     */
    item?: ItemVersionSeen;
  }
>;

export type ReviewJobLockRenewed = DomainEvent<'ReviewJobLockRenewed', { jobId: string; moderatorId: string; renewedAt: string; expiresAt: string }>;

/** The lock ended before a decision: given back by its holder, or taken away by a manager. */
export type ReviewJobReleased = DomainEvent<
  'ReviewJobReleased',
  { jobId: string; moderatorId: string; releasedAt: string; releasedBy: string; reason: 'RELEASED' | 'MANAGER_RELEASE' }
>;

/** The holder gave the job back and is not offered it again before `skipUntil`. */
export type ReviewJobSkipped = DomainEvent<'ReviewJobSkipped', { jobId: string; moderatorId: string; skippedAt: string; skipUntil: string }>;

/** A manager reserved the job for one moderator: only they can claim it (any lock held is ended). */
export type ReviewJobAssigned = DomainEvent<'ReviewJobAssigned', { jobId: string; moderatorId: string; assignedBy: string; assignedAt: string }>;

/**
 * The job's one decision, which closes it. `actor` is null for AUTOMATIC_CLOSE. The moderator's
 * reason and note are their own words about the item, not a user's personal data.
 */
export type ReviewJobDecided = DomainEvent<
  'ReviewJobDecided',
  {
    jobId: string;
    decisionId: string;
    type: DecisionType;
    /** Who decided (their email is in the user's own stream, sealed, and in the callbacks it requested). */
    actor: { userId: string } | null;
    actionIds: string[];
    policies: JobPolicy[];
    reason: string | null;
    note: string | null;
    parameters: { [name: string]: unknown };
    /** TRANSFORM_JOB_AND_RECREATE_IN_QUEUE: where the job is recreated. */
    targetQueueId: string | null;
    /** AUTOMATIC_CLOSE: why. */
    closeReason: 'ITEM_ACTIONED' | 'EXPIRED' | 'USER_ERASED' | null;
    /** The deliveries of the action callbacks this decision requested (ActionCallbackRequested in the same append). */
    deliveryIds: string[];
    /** An appeal job's appeal (ACCEPT_APPEAL / REJECT_APPEAL are its outcome); missing or null: not an appeal job. */
    appealId?: string | null;
    /**
     * What was decided on: the item version the moderator was shown and its content digest.
     * Null for AUTOMATIC_CLOSE (no one looked); absent on decisions recorded before it was.
     */
    item?: ItemVersionSeen | null;
    decidedAt: string;
  }
>;

/** One report a child-safety report names: its reporter (null in events recorded before v2, which did not pair them) and reason. */
export interface IncidentReport {
  reporter: Reporter | null;
  reason: string | null;
}

/**
 * SUBMIT_CHILD_SAFETY_REPORT: what a CyberTipline-style report needs, recorded for export (no
 * outside submission yet). `incident` is sealed under the item's subject, and each report's reason
 * in it once more under its reporter's key (docs/gdpr.md). v2 pairs each reason with its reporter
 * (`incident.reports`); v1 kept the reasons alone (`incident.reportReasons`), upcast to reports
 * without a reporter.
 */
export type ChildSafetyReportRecorded = DomainEvent<
  'ChildSafetyReportRecorded',
  {
    reportId: string;
    jobId: string;
    item: JobItem & { version: number };
    /** The user the content is attributed to, when known. */
    creator: { id: string; typeId: string } | null;
    reporters: Reporter[];
    incident: { reports: IncidentReport[]; moderatorReason: string | null; note: string | null };
    mediaUrls: string[];
    /**
     * Sealed with `incident` (an email is personal data), and the email once more under the
     * console user's own key (docs/gdpr.md): null once their console account was erased.
     */
    reportedBy: { userId: string; email: string | null };
    recordedAt: string;
    subject: string | null;
  }
>;

/**
 * An item bound for human review: a rule's ENQUEUE_TO_MRT / ENQUEUE_TO_CHILD_SAFETY action (the
 * rules engine), or an executed action's or a strike threshold's (enforcement). The review module
 * creates the job and owns the contract (docs/architecture.md, "Events").
 */
export type ReviewEnqueueRequested = DomainEvent<
  'ReviewEnqueueRequested',
  {
    /** The request's idempotency key, derived by the publisher (per content and action for a rule). */
    jobId: string;
    item: JobItem;
    version: number;
    queueId: 'default' | 'child-safety';
    /** RULE_EXECUTION from rules; POST_ACTIONS from what follows an action (an executed action, a strike threshold). */
    source: 'RULE_EXECUTION' | 'POST_ACTIONS';
    actionId: string;
    policies: JobPolicy[];
    rules: Array<{ id: string; name: string }>;
    environment: ActionEnvironment;
  }
>;

export type ReviewJobEvent =
  | ReviewJobOpened
  | ReviewJobMerged
  | ReviewJobClaimed
  | ReviewJobLockRenewed
  | ReviewJobReleased
  | ReviewJobSkipped
  | ReviewJobAssigned
  | ReviewJobDecided
  | ChildSafetyReportRecorded
  | ActionCallbackRequested;

export const REVIEW_JOB_EVENT_TYPES: ReadonlyArray<ReviewJobEvent['type']> = [
  'ReviewJobOpened',
  'ReviewJobMerged',
  'ReviewJobClaimed',
  'ReviewJobLockRenewed',
  'ReviewJobReleased',
  'ReviewJobSkipped',
  'ReviewJobAssigned',
  'ReviewJobDecided',
  'ChildSafetyReportRecorded',
];
