/**
 * The pure part of an item's evaluation: from the condition sets' outcomes to the rule results,
 * the rules whose daily cap must be decided, and the evaluation with its published actions once
 * the caps are known. No reads, no writes (docs/rules.md, "Evaluation"): the reads are the
 * evaluator's (evaluation/item-evaluator.ts), the writes the recorder's
 * (evaluation/evaluation-recorder.ts).
 */
import type { ActionDefinition, PolicyDefinition, RuleDefinition } from '#warden/catalog/contracts';
import { canonicalJsonDigest } from '#warden/kernel';
import type { Environment, Evaluation, ItemRef, RuleResult } from './evaluation.events.js';
import type { ConditionRecord, SetEvaluation } from './evaluation.model.js';
import { collectActions, publishes } from './rule-selection.js';

/**
 * The digest of a rule's definition (canonical JSON of the catalog's rule): recorded with each
 * rule result, so that an evaluation says which definition it ran (docs/rules.md, "Why was an item (not) actioned?": evidence bound to
 * every evaluation). The catalog hands out the same rule object until the rule changes, so the
 * digest is computed once per definition.
 */
const definitionDigests = new WeakMap<object, string>();
export function ruleDefinitionDigest(rule: RuleDefinition): string {
  let digest = definitionDigests.get(rule);
  if (digest === undefined) {
    digest = canonicalJsonDigest(rule);
    definitionDigests.set(rule, digest);
  }
  return digest;
}

/**
 * The evaluation record keeps signal values (booleans, numbers), never raw inputs such as the
 * text a user wrote. A number can still be the user's own (an age compared without a signal), and
 * a detail can be derived from their data (a distance): what the conditions saw is sealed under
 * the item's subject all the same (ItemEvaluated's `conditionValues`).
 */
export function withoutPersonalData(record: ConditionRecord): ConditionRecord {
  const v = record.value;
  if (v === undefined || v === null || typeof v === 'boolean' || typeof v === 'number') return record;
  const { value: _dropped, ...rest } = record;
  return rest;
}

/** What an evaluation event keeps of a condition's record: no personal value, nor the partial-item bookkeeping. */
function recordedCondition(record: ConditionRecord): ConditionRecord {
  const { missing: _missing, ...kept } = record;
  return withoutPersonalData(record.missing === undefined ? record : kept);
}

/** The conditions left unknown for want of fields say why the whole item could not be had. */
export function withFetchFailure(set: SetEvaluation, reason: string): SetEvaluation {
  if (!set.conditions.some((c) => c.missing !== undefined)) return set;
  return {
    ...set,
    conditions: set.conditions.map((c) => (c.missing === undefined ? c : { ...c, error: `${c.error}; fetching the whole item failed: ${reason}` })),
  };
}

/** Each rule's result from its condition set's evaluation (same order); none capped yet. */
export function ruleResults(rules: readonly RuleDefinition[], sets: readonly SetEvaluation[]): RuleResult[] {
  return sets.map((set, i) => {
    const rule = rules[i]!;
    return {
      id: rule.id,
      name: rule.name,
      status: rule.status,
      outcome: set.outcome,
      definition: ruleDefinitionDigest(rule),
      capped: false,
      conditions: set.conditions.map(recordedCondition),
    };
  });
}

/** A passed rule whose action count for the day must be decided before its actions are published. */
export interface CapToDecide {
  readonly ruleId: string;
  readonly maxDailyActions: number;
}

/**
 * The item version's evaluation before the daily caps are decided: every rule's outcome and what
 * is needed to publish its actions. Made without writing anything; completeEvaluation finishes it
 * once the recorder has decided the caps on the write side.
 */
export interface DraftEvaluation {
  readonly item: ItemRef;
  readonly version: number;
  readonly environment: Environment;
  readonly subject: string;
  readonly rules: readonly RuleResult[];
  readonly rulesById: ReadonlyMap<string, RuleDefinition>;
  readonly actions: ReadonlyMap<string, ActionDefinition>;
  readonly policies: ReadonlyMap<string, PolicyDefinition>;
  /** The passed rules with a maxDailyActions whose count must be taken (only live evaluations count). */
  readonly caps: readonly CapToDecide[];
}

/** The rules of these results that count toward their daily cap: live, passed, publishing, with actions. */
export function capsToDecide(results: readonly RuleResult[], rulesById: ReadonlyMap<string, RuleDefinition>, environment: Environment): CapToDecide[] {
  // Only live evaluations count toward the daily cap; a retroaction counts toward nothing.
  if (environment !== 'LIVE') return [];
  const caps: CapToDecide[] = [];
  for (const result of results) {
    const rule = rulesById.get(result.id);
    if (!rule || result.outcome !== 'passed' || rule.maxDailyActions === null) continue;
    if (!publishes(rule, environment) || rule.actionIds.length === 0) continue;
    caps.push({ ruleId: rule.id, maxDailyActions: rule.maxDailyActions });
  }
  return caps;
}

/** The evaluation once the caps are decided: the capped rules marked, the others' actions published. */
export function completeEvaluation(draft: DraftEvaluation, capped: ReadonlySet<string>): Evaluation {
  const rules = draft.rules.map((r) => (capped.has(r.id) ? { ...r, capped: true } : r));
  return {
    item: draft.item,
    version: draft.version,
    environment: draft.environment,
    subject: draft.subject,
    rules,
    actions: collectActions(rules, draft.rulesById, draft.actions, draft.policies, draft.environment),
  };
}
