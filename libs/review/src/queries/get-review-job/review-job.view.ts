import type { MergedReport } from '../../domain/decision-effects.js';
import type { JobState } from '../../projections/review-jobs.read-model.js';
import type { DecisionType, EnqueueSource, JobItem, JobPolicy } from '../../domain/review-job.events.js';

export interface ItemRefView {
  id: string;
  typeId: string;
}

/** An item Warden holds, at its latest version, its data unsealed for the viewer. */
export interface StoredItemView extends ItemRefView {
  typeName: string | null;
  version: number;
  /** That version's `typeVersion` (null: none sent). */
  typeVersion: string | null;
  data: { [field: string]: unknown } | null;
}

export interface ItemTypeFieldView {
  name: string;
  type: string;
  required: boolean;
  array: boolean;
  /** RELATED_ITEM: the types the related item may be of. */
  itemTypeIds: string[];
  /** The roles this field plays (creator, createdAt, thread, displayName). */
  roles: string[];
}

/** A report merged into the job, with what its reporter wrote (reason null: none, or erased). */
export type ReportView = MergedReport;

/** A thread or context item as the reporter sent it. */
export interface ContextItemView extends ItemRefView {
  typeName: string | null;
  data: { [field: string]: unknown };
  /** The item's time (its type's createdAt role or DATETIME field), when it has one. */
  createdAt: string | null;
  /** Specifically reported (listed in a report's reportedItemsInThread). */
  reported: boolean;
}

export interface CreatorView {
  item: ItemRefView;
  /** The creator's own user item, when Warden has one. */
  user: StoredItemView | null;
  /** Filled by the enforcement work; null until then. */
  userScore: number | null;
  strikeCount: number | null;
}

export interface ConditionView {
  path: string;
  outcome: string;
  value?: unknown;
  detail?: { [key: string]: unknown };
  error?: string;
}

export interface RuleExplanationView {
  id: string;
  name: string;
  outcome: string;
  conditions: ConditionView[];
}

/**
 * An evaluation of the item in which rules fired: the one whose action sent the item here (with
 * the explanations of the rules that did), or another (with those of every rule that passed).
 */
export interface EvaluationView {
  version: number;
  environment: string;
  evaluatedAt: string;
  /** The action that sent the item here; null for an evaluation that did not. */
  actionId: string | null;
  /** Every action the evaluation published. */
  actions: string[];
  rules: RuleExplanationView[];
}

/** An action Warden published on an item (a rule's, a decision's, a threshold's, the platform's), and how its callback went. */
export interface PublishedActionView {
  deliveryId: string;
  item: ItemRefView;
  actionId: string;
  /** The live action's name; null when the organization has no such action (any longer). */
  actionName: string | null;
  trigger: string;
  policies: Array<{ id: string; name: string }>;
  rules: Array<{ id: string; name: string }>;
  requestedAt: string;
  /** Null while its delivery is not recorded yet. */
  delivery: { status: string; attempts: number; deliveredAt: string | null; deadLetteredAt: string | null } | null;
}

export interface HashMatchView {
  ruleId: string;
  bankId: string;
  bankName: string | null;
  distance: number;
  hash: string | null;
}

export interface PastJobView {
  jobId: string;
  queueId: string;
  item: ItemRefView;
  state: JobState;
  openedAt: string;
  reportCount: number;
  decision: { type: DecisionType; actorId: string | null; decidedAt: string } | null;
}

export interface RelatedItemView extends StoredItemView {
  /** The field of the job's item that names it. */
  field: string;
}

/** A callback Warden sent for the actioned item with an appealed action id, and how it was delivered. */
export interface ActionCallbackView {
  deliveryId: string;
  /** What sent it: a rule, a moderator decision (or POST /api/v1/actions), a strike threshold. */
  trigger: string;
  policies: Array<{ id: string; name: string }>;
  rules: Array<{ id: string; name: string }>;
  /** The decision that sent it, when a moderator's decision did. */
  decision: { decisionId: string; jobId: string; moderatorId: string | null; decidedAt: string } | null;
  requestedAt: string;
  delivery: { status: string; attempts: number; deliveredAt: string | null; deadLetteredAt: string | null };
}

/** An appealed action id with what Warden did under it. */
export interface AppealedActionView {
  actionId: string;
  /** The live action's name; null when the organization has no such action (any longer). */
  actionName: string | null;
  /** Oldest first; empty when Warden sent no callback with this action id for the item. */
  callbacks: ActionCallbackView[];
}

/** One strike application as the appellant's strike stream records it. */
export interface StrikeEntryView {
  strikes: number;
  /** Null without VIEW_CHILD_SAFETY_DATA: it would tell when a strike not shown came. */
  countAfter: number | null;
  actionId: string;
  policyIds: string[];
  item: ItemRefView;
  appliedAt: string;
  counting: boolean;
}

/** The appeal an appeal job reviews (POST /api/v1/report/appeal). */
export interface AppealView {
  appealId: string;
  appealedAt: string;
  appellant: ItemRefView | null;
  /** Personal data: null when none was given, or once it was erased. */
  reason: string | null;
  /** The policies the platform named; unknown ids keep a null name. */
  violatingPolicies: Array<{ id: string; name: string | null }>;
  actionsTaken: AppealedActionView[];
  /** The appellant's strikes; null where no module counts strikes. */
  strikes: { count: number; windowDays: number | null; history: StrikeEntryView[] } | null;
}

/** One job as a moderator sees it (docs/review.md, "The job view"): the job stream plus what it refers to. */
export interface ReviewJobView {
  jobId: string;
  queueId: string;
  state: JobState;
  /**
   * The job's item at the version shown (data unsealed for the viewer): the version the viewer's
   * claim showed while they hold the job's lock, else the latest version Warden has. A decision
   * names `version` (or, by default, is made on the claim's): the data shown is always that
   * version's, so a newer version is never shown under an older one's number.
   */
  item: JobItem & {
    /** The version whose data and creator are shown. */
    version: number;
    /** The latest version a request named. */
    requestedVersion: number;
    /** The latest version Warden has (newer than `version` when one arrived after the viewer's claim). */
    latestVersion: number | null;
    data: { [field: string]: unknown } | null;
    creator: ItemRefView | null;
    /** The shown version's `typeVersion` as recorded (null: none sent). */
    typeVersion: string | null;
    /** The shown version's schema variant: `partial` when it was sent with fields left out. */
    typeSchemaVariant: 'original' | 'partial' | null;
    /** How the shown version arrived: `items`, `content`, `report`, `topic`, or `partial-fetch` (fetched from the customer). */
    versionSource: string | null;
    /** The digest of the shown version's content, as a decision on it records it; null when unreadable. */
    contentDigest: string | null;
  };
  itemType: { id: string; name: string; kind: string; fields: ItemTypeFieldView[] } | null;
  source: EnqueueSource;
  sources: EnqueueSource[];
  reportCount: number;
  openedAt: string;
  policies: JobPolicy[];
  reports: ReportView[];
  /** False when older reports' thread and context items were left out (past the newest 50 reports, or the view's 2 Mi-character budget). */
  contextComplete: boolean;
  thread: ContextItemView[];
  additionalItems: ContextItemView[];
  creator: CreatorView | null;
  /** Those that sent the item here (for the newest 20 item versions the rule requests name), then 10 others in which rules fired. */
  evaluations: EvaluationView[];
  hashMatches: HashMatchView[];
  history: { item: PastJobView[]; creator: PastJobView[] };
  /** What Warden already did: the actions published on this item, and the creator's recent ones (any item), newest first. */
  actions: { item: PublishedActionView[]; creator: PublishedActionView[] };
  relatedItems: RelatedItemView[];
  lock: { moderatorId: string; expiresAt: string } | null;
  assignedTo: string | null;
  decision: { decisionId: string; type: DecisionType; actorId: string | null; decidedAt: string } | null;
  /** An appeal job's appeal; null on every other job. */
  appeal: AppealView | null;
}
