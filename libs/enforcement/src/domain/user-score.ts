import type { Penalty, ScoreSettings } from '#warden/catalog/contracts';

export interface UserRef {
  id: string;
  typeId: string;
}

/** One action published for an item: its id and the penalties of the policies it named, as published. */
export interface ScoredAction {
  actionId: string;
  policyPenalties: Penalty[];
  /**
   * The publications it was recorded from (strikes' application keys: one per content or
   * delivery). Reversing the action reverses these, so that a re-publication of one stays out.
   */
  keys?: string[];
}

/** An item of the user's that was actioned, with every distinct action taken on it. */
export interface ActionedItem {
  item: UserRef;
  actions: ScoredAction[];
}

/** What the scores read model knows of one user: facts only, so a change of weights applies at once. */
export interface UserScoreFacts {
  /** Items the user created (counted at their first version). */
  submissions: number;
  actioned: ActionedItem[];
  /** Publications reversed by an accepted appeal: published again (content re-sent, a replay), they still do not count. */
  reversedKeys?: string[];
}

export const BEST_SCORE = 5;

/**
 * The penalty of one (action, policy) pair: action weight + policy weight, 0 when the action's
 * penalty is NONE. An action without policies is one pair with the policy weight left out.
 */
export function pairPenalty(actionPenalty: Penalty, policyPenalty: Penalty | null, weights: ScoreSettings['penaltyWeights']): number {
  if (actionPenalty === 'NONE') return 0;
  return weights[actionPenalty] + (policyPenalty === null ? 0 : weights[policyPenalty]);
}

/** An item counts once, at its most severe pair. */
export function itemPenalty(item: ActionedItem, actionPenalty: (actionId: string) => Penalty, weights: ScoreSettings['penaltyWeights']): number {
  let most = 0;
  for (const action of item.actions) {
    const penalty = actionPenalty(action.actionId);
    const pairs = action.policyPenalties.length === 0 ? [null] : action.policyPenalties;
    for (const policy of pairs) most = Math.max(most, pairPenalty(penalty, policy, weights));
  }
  return most;
}

/** ratio ≤ thresholds[0] → 5, ≤ [1] → 4, ≤ [2] → 3, ≤ [3] → 2, else 1. */
export function scoreForRatio(ratio: number, thresholds: ScoreSettings['thresholds']): number {
  const band = thresholds.findIndex((bound) => ratio <= bound);
  return band === -1 ? 1 : BEST_SCORE - band;
}

/**
 * The user's score from 1 (worst) to 5 (best): penalty points per submission. Every actioned
 * item is a submission of the user's, so the denominator is never below their number (an item
 * whose first version named another creator still counts). No submissions: 5.
 */
export function userScore(facts: UserScoreFacts | undefined, settings: ScoreSettings, actionPenalty: (actionId: string) => Penalty): number {
  if (!facts) return BEST_SCORE;
  const submissions = Math.max(facts.submissions, facts.actioned.length);
  if (submissions === 0) return BEST_SCORE;
  const points = facts.actioned.reduce((sum, item) => sum + itemPenalty(item, actionPenalty, settings.penaltyWeights), 0);
  return scoreForRatio(points / submissions, settings.thresholds);
}

const sameItem = (a: UserRef, b: UserRef) => a.id === b.id && a.typeId === b.typeId;

/**
 * Records an action on one of the user's items. The same action on the same item again (another
 * rule, a later version, a redelivered event) adds only policies not yet recorded: a set, so
 * applying it twice changes nothing.
 */
export function withAction(facts: UserScoreFacts, item: UserRef, action: ScoredAction): UserScoreFacts {
  const newKeys = (action.keys ?? []).filter((key) => !(facts.reversedKeys ?? []).includes(key));
  if (action.keys && action.keys.length > 0 && newKeys.length === 0) return facts;
  const index = facts.actioned.findIndex((a) => sameItem(a.item, item));
  const existing = index === -1 ? { item: { id: item.id, typeId: item.typeId }, actions: [] } : facts.actioned[index]!;
  const known = existing.actions.find((a) => a.actionId === action.actionId);
  const penalties = [...new Set([...(known?.policyPenalties ?? []), ...action.policyPenalties])].sort();
  const keys = [...new Set([...(known?.keys ?? []), ...newKeys])];
  if (known && penalties.length === known.policyPenalties.length && keys.length === (known.keys ?? []).length) return facts;
  const recorded: ScoredAction = keys.length > 0 ? { actionId: action.actionId, policyPenalties: penalties, keys } : { actionId: action.actionId, policyPenalties: penalties };
  const actions = known ? existing.actions.map((a) => (a.actionId === action.actionId ? recorded : a)) : [...existing.actions, recorded];
  const actioned = index === -1 ? [...facts.actioned, { ...existing, actions }] : facts.actioned.map((a, i) => (i === index ? { ...a, actions } : a));
  return { ...facts, actioned };
}

/**
 * A reversal (an accepted appeal, UserActionsReversed): the action no longer counts against the user; an
 * item left without actions is no longer actioned. Undoing what was never recorded changes nothing.
 */
export function withoutAction(facts: UserScoreFacts, item: UserRef, actionId: string): UserScoreFacts {
  const index = facts.actioned.findIndex((a) => sameItem(a.item, item));
  if (index === -1) return facts;
  const reversed = facts.actioned[index]!.actions.filter((a) => a.actionId === actionId);
  if (reversed.length === 0) return facts;
  const actions = facts.actioned[index]!.actions.filter((a) => a.actionId !== actionId);
  const actioned = actions.length === 0 ? facts.actioned.filter((_, i) => i !== index) : facts.actioned.map((a, i) => (i === index ? { ...a, actions } : a));
  const reversedKeys = [...(facts.reversedKeys ?? []), ...reversed.flatMap((a) => a.keys ?? [])];
  return reversedKeys.length > 0 ? { ...facts, actioned, reversedKeys } : { ...facts, actioned };
}
