import type { Penalty } from '#warden/catalog/contracts';
import type { DomainEvent } from '#warden/kernel';

/**
 * ActionCallbackRequested: a customer-defined action to deliver as a signed callback. Four modules
 * publish it (the rules engine, review's decisions, enforcement's strike thresholds and the
 * actions the platform executed); the callbacks module delivers it and owns its contract, declared
 * here once (docs/architecture.md, "Events"). Each publisher builds its own variant; enforcement's
 * actions reactor, the delivery recorder, the scores, appeals and transparency projections read the union.
 */

/** The item acted on, as callbacks name it. */
export interface ActionItem {
  id: string;
  typeId: string;
  /** The item type's display name (sent as `typeName`). */
  typeName: string;
}

/** A policy the action names. */
export interface ActionPolicy {
  id: string;
  name: string;
  penalty: Penalty;
}

/** A rule that published the action. */
export interface ActionRule {
  id: string;
  name: string;
}

/** Where the action was decided: only LIVE (for LIVE rules), RETROACTION and MANUAL publish actions. */
export type ActionEnvironment = 'LIVE' | 'RETROACTION' | 'MANUAL' | 'BACKTEST';

interface ActionCallbackCommon {
  deliveryId: string;
  item: ActionItem;
  action: { id: string };
  /** The action's configured body. */
  custom: { [key: string]: unknown };
  /** The user concerned: the item itself for USER items, its creator for CONTENT items; null when unknown. */
  creator: { id: string; typeId: string } | null;
  /**
   * The content acted on (the rules engine's item-content.ts: digest and the version where it
   * began), so that one action on one content strikes its user once, however often the content is
   * re-sent. Absent on actions published before it was recorded, and on other publishers'.
   */
  content?: string;
}

/** A rule fired (trigger absent on events recorded before it was named). */
export interface RuleActionCallback extends ActionCallbackCommon {
  trigger?: 'rule';
  environment: ActionEnvironment;
  policies: ActionPolicy[];
  rules: ActionRule[];
}

/** A moderator decided (review): who, why, on what, and the merged reports. */
export interface DecisionActionCallback extends ActionCallbackCommon {
  /** Absent on decisions recorded before it was (told apart by their `actorEmail`). */
  trigger?: 'decision';
  environment: 'MANUAL';
  policies: ActionPolicy[];
  rules: ActionRule[];
  /**
   * The deciding moderator, a console user: sealed under `subject`, and their email once more
   * under the console user's own key inside, so that erasing their console account erases this
   * copy too (docs/gdpr.md). `email` is null once that account's email was erased. Absent on
   * decisions recorded before it was, which have `actorEmail` instead.
   */
  actor?: { userId: string; email: string | null };
  /** Decisions recorded before `actor` was: the moderator's email, sealed under `subject` only. */
  actorEmail?: string;
  actorNote: string | null;
  parameters: { [key: string]: unknown };
  decisionReason: string | null;
  /** The item version the decision was made on and its content digest. */
  decidedOn?: { version: number; contentDigest: string | null };
  /** The merged reports (reason and reporter), sealed under `subject`, each reason again under its reporter's key. */
  reportHistory: Array<{ reason: string | null; reporter: { kind: 'user'; id: string; typeId: string } | null }> | null;
  /** The personal-data subject of the sealed fields; null when there is none. */
  subject: string | null;
}

/** A user crossed a strike threshold (enforcement): the USER item, no policies or rules. */
export interface ThresholdActionCallback extends ActionCallbackCommon {
  trigger: 'strike-threshold';
  environment: 'LIVE';
  policies: [];
  rules: [];
  creator: { id: string; typeId: string };
  userStrikeCount: number;
}

/**
 * The platform executed the action through POST /api/v1/actions, or a console bulk action did
 * (enforcement): a person's action, not a rule's.
 */
export interface ExecutionActionCallback extends ActionCallbackCommon {
  trigger: 'post-actions';
  environment: 'MANUAL';
  policies: ActionPolicy[];
  rules: [];
  /**
   * A bulk action's: the manager who asked for it (a console user), sent as `actorEmail`; their
   * email sealed under their own key, as a decision's moderator's is (docs/gdpr.md), and null once
   * their console account was erased. Absent for POST /api/v1/actions (the platform's actor has no
   * email) and on bulk actions requested before it was recorded.
   */
  actor?: { userId: string; email: string | null };
  /** A bulk action's reason, sent as `decisionReason` (not merged into `custom`); present when `actor` is. */
  decisionReason?: string;
}

export type ActionCallbackData = RuleActionCallback | DecisionActionCallback | ThresholdActionCallback | ExecutionActionCallback;

export type ActionCallbackRequested = DomainEvent<'ActionCallbackRequested', ActionCallbackData>;
