import type { CallbackItem, CallbackPolicy, CallbackRule, ItemIdentifier, JsonBody, ReportRecord } from './callback-body.model.js';

/** What the action callback (docs/callbacks.md, "The bodies") was triggered by, with what each trigger knows. */
export type ActionCallbackTrigger = RuleTrigger | DecisionTrigger | StrikeThresholdTrigger | PostActionsTrigger;

interface TriggerBase {
  item: CallbackItem;
  action: { id: string };
  /** The action's configured body (Body in the action form). */
  actionBody: JsonBody;
  /** The user concerned: the item itself for USER items, the author for CONTENT items. */
  creator: ItemIdentifier | null;
  /** Cumulative strikes after this action; absent until strikes are counted. */
  userStrikeCount?: number | null;
}

/** An automated rule published the action. */
export interface RuleTrigger extends TriggerBase {
  kind: 'rule';
  policies: readonly CallbackPolicy[];
  rules: readonly CallbackRule[];
}

/** A moderator's decision (review console or decision API) triggered the action. */
export interface DecisionTrigger extends TriggerBase {
  kind: 'decision';
  policies: readonly CallbackPolicy[];
  /** Empty for manual review and bulk actioning. */
  rules?: readonly CallbackRule[];
  /** Absent once the moderator's console account was erased (docs/callbacks.md: left out, never empty). */
  actorEmail?: string;
  actorNote?: string | null;
  /** Values the moderator filled in for the action's parameters. */
  parameters?: JsonBody;
  decisionReason?: string | null;
  /** Reports of a reported item; null or absent when the item was not reported. */
  reportHistory?: readonly ReportRecord[] | null;
}

/** The user's cumulative strikes crossed a configured threshold. */
export interface StrikeThresholdTrigger extends TriggerBase {
  kind: 'strike-threshold';
}

/**
 * The platform executed the action (POST /api/v1/actions) or a console bulk action did: sent as for
 * a decision, with the policies named and no rules. POST /api/v1/actions sends no actor fields (the
 * platform's actor has no email); a bulk action sends its manager's email and reason, but neither
 * merged into `custom`, which holds them for a decision on a reported item only (docs/callbacks.md).
 */
export interface PostActionsTrigger extends TriggerBase {
  kind: 'post-actions';
  policies: readonly CallbackPolicy[];
  /** A bulk action's manager; absent (or null, once their console account was erased) sends none. */
  actorEmail?: string | null;
  /** A bulk action's reason. */
  decisionReason?: string | null;
}

/** The action callback's body (docs/callbacks.md, "The bodies"), fields in the documented order; optional ones only when they apply. */
export interface ActionCallbackBody {
  item: CallbackItem;
  action: { id: string };
  policies: CallbackPolicy[];
  rules: CallbackRule[];
  custom: JsonBody;
  actorEmail?: string;
  actorNote?: string;
  creator?: ItemIdentifier;
  decisionReason?: string;
  userStrikeCount?: number;
}

export function buildActionCallbackBody(trigger: ActionCallbackTrigger): ActionCallbackBody {
  const decision = trigger.kind === 'decision' ? trigger : undefined;
  const execution = trigger.kind === 'post-actions' ? trigger : undefined;
  const reason = present(decision?.decisionReason);
  const note = present(decision?.actorNote);
  const body: ActionCallbackBody = {
    item: { id: trigger.item.id, typeId: trigger.item.typeId, typeName: trigger.item.typeName },
    action: { id: trigger.action.id },
    // A strike-threshold callback never names policies or rules, whatever the caller holds.
    policies: trigger.kind === 'strike-threshold' ? [] : trigger.policies.map((p) => ({ id: p.id, name: p.name, penalty: p.penalty })),
    rules: trigger.kind === 'strike-threshold' || trigger.kind === 'post-actions' ? [] : (trigger.rules ?? []).map((r) => ({ id: r.id, name: r.name })),
    custom: {
      ...trigger.actionBody,
      ...(decision?.parameters ?? {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(decision?.reportHistory ? { reportHistory: decision.reportHistory.map((r) => ({ reason: r.reason, reporter: r.reporter })) } : {}),
    },
  };
  const actorEmail = decision ? present(decision.actorEmail) : present(execution?.actorEmail);
  if (actorEmail !== undefined) body.actorEmail = actorEmail;
  if (note !== undefined) body.actorNote = note;
  if (trigger.creator) body.creator = { id: trigger.creator.id, typeId: trigger.creator.typeId };
  const decisionReason = reason ?? present(execution?.decisionReason);
  if (decisionReason !== undefined) body.decisionReason = decisionReason;
  if (typeof trigger.userStrikeCount === 'number') body.userStrikeCount = trigger.userStrikeCount;
  return body;
}

/** "Omitted when none": null, absent and blank texts all count as none. */
const present = (text: string | null | undefined): string | undefined => (text === null || text === undefined || text.trim() === '' ? undefined : text);

/**
 * A stored body as it is sent: a field "when it applies" is left out, never null (docs/callbacks.md).
 * The one field a stored body can come to hold as null is `actorEmail`, sealed under the deciding
 * moderator's (or a bulk action's manager's) key, once that console account was erased
 * (docs/gdpr.md): a delivery sent again then leaves it out, as for an action no one named.
 */
export function sendableBody(body: JsonBody): JsonBody {
  if (body['actorEmail'] !== null) return body;
  const { actorEmail: _erased, ...sent } = body;
  return sent;
}
