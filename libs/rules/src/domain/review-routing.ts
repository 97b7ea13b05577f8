import { type ConditionSet, type LeafCondition, REPORT_INPUTS, type RoutingRuleDefinition } from '#warden/catalog/contracts';
import type { ConditionRecord, SetEvaluation } from './evaluation.model.js';

/** The routing inputs of a report (REPORT_REASON, REPORTED_POLICY, REPORT_COUNT). */
export interface RoutingReport {
  readonly reason: string | null;
  readonly policyId: string | null;
  /** Absent when no routing rule reads REPORT_COUNT (it was not counted). */
  readonly count?: number;
}

export interface Route {
  readonly queueId: string;
  readonly rule: { readonly id: string; readonly name: string };
  readonly conditions: ConditionRecord[];
}

/** A routing rule with its position in the configuration (the catalog's OrderedRoutingRule). */
export type OrderedRoutingRule = RoutingRuleDefinition & { readonly order: number };

/** The key under which the condition evaluator finds the routing inputs (condition-evaluator.ts). */
export const REPORT_DATA_KEY = '__report';

/** The routing rules that apply to an item type, in their configured order ([] item types: all). */
export function routingRulesFor(rules: readonly OrderedRoutingRule[], itemTypeId: string): OrderedRoutingRule[] {
  return rules
    .filter((r) => r.itemTypeIds.length === 0 || r.itemTypeIds.includes(itemTypeId))
    .sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The first rule whose condition set passes picks the queue; a rule whose outcome is unknown (a
 * signal failed, an input absent) does not pass. Rules are evaluated one after the other, so
 * that no later rule's signals are paid for once one passed.
 */
export async function firstPassingRoute(
  rules: readonly OrderedRoutingRule[],
  evaluate: (set: ConditionSet) => SetEvaluation | Promise<SetEvaluation>,
): Promise<Route | null> {
  for (const rule of rules) {
    const result = await evaluate(rule.conditionSet);
    if (result.outcome === 'passed') return { queueId: rule.queueId, rule: { id: rule.id, name: rule.name }, conditions: result.conditions };
  }
  return null;
}

/**
 * Whether any of the rules looks at the item itself: a field, the creator, its text or images.
 * Signals see only their leaf's input (and the item's ids), so rules whose every leaf reads a
 * report input leave the item's data unread, and the router need not load it.
 */
export function routingReadsItem(rules: readonly OrderedRoutingRule[]): boolean {
  return someLeaf(rules, (leaf) => !readsReportOnly(leaf));
}

/**
 * Whether any of the rules may read the count of the item's reports (the router counts them only
 * then): REPORT_COUNT, and ITEM, whose value is the item's whole data with the report's inputs
 * under `__report` (a classifier behind HTTP_SIGNAL gets them all).
 */
export function routingReadsReportCount(rules: readonly OrderedRoutingRule[]): boolean {
  return someLeaf(rules, readsWholeReport);
}

/** Whether a leaf condition of any rule, at any depth of its condition set, passes `test`. */
function someLeaf(rules: readonly OrderedRoutingRule[], test: (leaf: LeafCondition) => boolean): boolean {
  const inSet = (set: ConditionSet): boolean => set.conditions.some((c) => ('conjunction' in c ? inSet(c) : test(c)));
  return rules.some((rule) => inSet(rule.conditionSet));
}

function readsWholeReport(leaf: LeafCondition): boolean {
  if ('builtin' in leaf.input) return leaf.input.builtin === 'REPORT_COUNT' || leaf.input.builtin === 'ITEM';
  return leaf.input.field === REPORT_DATA_KEY || leaf.input.field.startsWith(`${REPORT_DATA_KEY}.`);
}

function readsReportOnly(leaf: LeafCondition): boolean {
  return 'builtin' in leaf.input && REPORT_INPUTS.has(leaf.input.builtin);
}
