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

/** The evaluation of the item version a rule sent here, with the explanations of the rules that did. */
export interface EvaluationView {
  version: number;
  environment: string;
  evaluatedAt: string;
  actionId: string;
  rules: RuleExplanationView[];
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

/** One job as a moderator sees it (spec 1.8): the job stream plus what it refers to. */
export interface ReviewJobView {
  jobId: string;
  queueId: string;
  state: JobState;
  /** The job's item at its latest version Warden has (data unsealed for the viewer). */
  item: JobItem & {
    /** The latest version a request named. */
    version: number;
    latestVersion: number | null;
    data: { [field: string]: unknown } | null;
    creator: ItemRefView | null;
  };
  itemType: { id: string; name: string; kind: string; fields: ItemTypeFieldView[] } | null;
  source: EnqueueSource;
  sources: EnqueueSource[];
  reportCount: number;
  openedAt: string;
  policies: JobPolicy[];
  reports: ReportView[];
  thread: ContextItemView[];
  additionalItems: ContextItemView[];
  creator: CreatorView | null;
  evaluations: EvaluationView[];
  hashMatches: HashMatchView[];
  history: { item: PastJobView[]; creator: PastJobView[] };
  relatedItems: RelatedItemView[];
  lock: { moderatorId: string; expiresAt: string } | null;
  assignedTo: string | null;
  decision: { decisionId: string; type: DecisionType; actorId: string | null; decidedAt: string } | null;
}
