import type { ActionDefinition, PolicyDefinition, RuleDefinition, RuleStatus } from '#warden/catalog/contracts';
import { BUILTIN_ACTION_IDS } from '#warden/catalog/contracts';
import type { Environment, PublishedAction, RuleResult } from './evaluation.events.js';

/**
 * The rule's status at `now`: EXPIRED from its `expiresAt` on, whatever the configuration says
 * (docs/configuration-as-code.md: the rule becomes EXPIRED then), else the configured one.
 */
export function statusAt(rule: Pick<RuleDefinition, 'status' | 'expiresAt'>, now: Date): RuleStatus {
  return rule.expiresAt !== null && Date.parse(rule.expiresAt) <= now.getTime() ? 'EXPIRED' : rule.status;
}

/** Rules that run on live submissions of this type: LIVE and BACKGROUND, not expired. */
export function rulesFor(rules: readonly RuleDefinition[], typeId: string, now: Date): RuleDefinition[] {
  return rules.filter((r) => {
    const status = statusAt(r, now);
    return (status === 'LIVE' || status === 'BACKGROUND') && (r.itemTypeIds.length === 0 || r.itemTypeIds.includes(typeId));
  });
}

/** Whether a passed rule's actions are published in this environment. */
export function publishes(rule: RuleDefinition, environment: Environment): boolean {
  if (environment === 'BACKTEST') return false;
  if (environment === 'LIVE') return rule.status === 'LIVE';
  return true;
}

/**
 * The actions of the passed, publishing, uncapped rules, one per action id, with the policies and
 * rules of every rule that chose it merged (docs/rules.md, "Actions": actions are de-duplicated).
 */
export function collectActions(
  results: readonly RuleResult[],
  rules: ReadonlyMap<string, RuleDefinition>,
  actions: ReadonlyMap<string, ActionDefinition>,
  policies: ReadonlyMap<string, PolicyDefinition>,
  environment: Environment,
): PublishedAction[] {
  const byAction = new Map<string, PublishedAction>();
  for (const result of results) {
    const rule = rules.get(result.id);
    if (!rule || result.outcome !== 'passed' || result.capped || !publishes(rule, environment)) continue;
    for (const actionId of rule.actionIds) {
      const kind = actionKind(actionId, actions);
      if (!kind) continue;
      const entry = byAction.get(actionId) ?? { id: actionId, kind, policies: [], rules: [] };
      for (const policyId of rule.policyIds) {
        const p = policies.get(policyId);
        if (p && !entry.policies.some((x) => x.id === p.id)) entry.policies.push({ id: p.id, name: p.name, penalty: p.penalty });
      }
      if (!entry.rules.some((x) => x.id === rule.id)) entry.rules.push({ id: rule.id, name: rule.name });
      byAction.set(actionId, entry);
    }
  }
  return [...byAction.values()];
}

function actionKind(id: string, actions: ReadonlyMap<string, ActionDefinition>): PublishedAction['kind'] | undefined {
  if (id === BUILTIN_ACTION_IDS.mrt) return 'ENQUEUE_TO_MRT';
  if (id === BUILTIN_ACTION_IDS.childSafety) return 'ENQUEUE_TO_CHILD_SAFETY';
  return actions.get(id)?.kind;
}

/** The UTC day an action counts toward a rule's maxDailyActions. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);
