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

/** What was done to one of the user's items: every distinct action taken on it (and kept out, its reversed publications). */
export interface ItemActions {
  actions: ScoredAction[];
  /** Publications reversed by an accepted appeal: published again (content re-sent, a replay), they still do not count. */
  reversedKeys?: string[];
}

/**
 * What the scores read model knows of one user: facts only, so a change of weights applies at once.
 * Actioned items are counted by what was done to them (`actionsSignature`): as many entries as
 * the configuration has distinct combinations, however many items a user had actioned.
 */
export interface UserScoreFacts {
  /** Items the user created (counted at their first version). */
  submissions: number;
  /** Actioned items by their actions' signature. */
  actionedBy: Record<string, number>;
}

/** The actions (and their policies' penalties) of an item, as one key: what its penalty depends on. */
export function actionsSignature(actions: readonly ScoredAction[]): string {
  return JSON.stringify(actions.map((a) => [a.actionId, [...a.policyPenalties].sort()] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function fromSignature(signature: string): ScoredAction[] {
  return (JSON.parse(signature) as Array<[string, Penalty[]]>).map(([actionId, policyPenalties]) => ({ actionId, policyPenalties }));
}

/** How many of the user's items were actioned. */
export function actionedCount(facts: UserScoreFacts): number {
  let n = 0;
  for (const count of Object.values(facts.actionedBy)) n += count;
  return n;
}

/** The user's counts once one item's actions went from `before` to `after` (none: not actioned). */
export function withItemChange(facts: UserScoreFacts, before: readonly ScoredAction[], after: readonly ScoredAction[]): UserScoreFacts {
  const actionedBy = { ...facts.actionedBy };
  if (before.length > 0) {
    const key = actionsSignature(before);
    const left = (actionedBy[key] ?? 0) - 1;
    if (left > 0) actionedBy[key] = left;
    else delete actionedBy[key];
  }
  if (after.length > 0) {
    const key = actionsSignature(after);
    actionedBy[key] = (actionedBy[key] ?? 0) + 1;
  }
  return { ...facts, actionedBy };
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
export function itemPenalty(
  item: Pick<ItemActions, 'actions'>,
  actionPenalty: (actionId: string) => Penalty,
  weights: ScoreSettings['penaltyWeights'],
): number {
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
  const submissions = Math.max(facts.submissions, actionedCount(facts));
  if (submissions === 0) return BEST_SCORE;
  let points = 0;
  for (const [signature, count] of Object.entries(facts.actionedBy)) {
    points += count * itemPenalty({ actions: fromSignature(signature) }, actionPenalty, settings.penaltyWeights);
  }
  return scoreForRatio(points / submissions, settings.thresholds);
}

/**
 * The publication keys an action keeps (the newest), and the reversed ones an item keeps: an item
 * re-published with new content all day would otherwise grow its document by a key each time,
 * rewritten whole at every event (and past MongoDB's 16 MB a document). A reversed action's older
 * publications, re-sent after the appeal, count again: only that far back is a reversal remembered.
 */
export const MAX_ACTION_KEYS = 1_024;
export const MAX_REVERSED_KEYS = 4 * MAX_ACTION_KEYS;

/**
 * Records an action on an item. The same action on the item again (another rule, a later version,
 * a redelivered event) adds only policies not yet recorded: a set, so applying it twice changes
 * nothing (the same object back).
 */
export function withAction(item: ItemActions, action: ScoredAction): ItemActions {
  const newKeys = (action.keys ?? []).filter((key) => !(item.reversedKeys ?? []).includes(key));
  if (action.keys && action.keys.length > 0 && newKeys.length === 0) return item;
  const known = item.actions.find((a) => a.actionId === action.actionId);
  const penalties = [...new Set([...(known?.policyPenalties ?? []), ...action.policyPenalties])].sort();
  const keys = [...new Set([...(known?.keys ?? []), ...newKeys])].slice(-MAX_ACTION_KEYS);
  if (known && penalties.length === known.policyPenalties.length && sameKeys(keys, known.keys ?? [])) return item;
  const recorded: ScoredAction =
    keys.length > 0 ? { actionId: action.actionId, policyPenalties: penalties, keys } : { actionId: action.actionId, policyPenalties: penalties };
  const actions = known ? item.actions.map((a) => (a.actionId === action.actionId ? recorded : a)) : [...item.actions, recorded];
  return { ...item, actions };
}

/**
 * A reversal (an accepted appeal, UserActionsReversed): the action no longer counts against the
 * user; an item left without actions is no longer actioned. Undoing what was never recorded
 * changes nothing (the same object back).
 */
export function withoutAction(item: ItemActions, actionId: string): ItemActions {
  const reversed = item.actions.filter((a) => a.actionId === actionId);
  if (reversed.length === 0) return item;
  const actions = item.actions.filter((a) => a.actionId !== actionId);
  const reversedKeys = [...(item.reversedKeys ?? []), ...reversed.flatMap((a) => a.keys ?? [])].slice(-MAX_REVERSED_KEYS);
  return reversedKeys.length > 0 ? { ...item, actions, reversedKeys } : { ...item, actions };
}

/** Whether two key lists are the same (a full list keeps its length when a key is dropped for a new one). */
function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}
