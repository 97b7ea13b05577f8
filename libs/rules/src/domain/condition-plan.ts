/**
 * The plan of a condition set (docs/rules.md, "The condition model"): each condition's path and
 * record slot in document order, children ordered cheapest first by their signals' declared cost,
 * and each leaf's comparator compiled against its configured value. Built once per (immutable,
 * event-sourced) set and signal registry revision; condition-evaluator.ts runs it on an item.
 */
import type { ConditionSet, LeafCondition } from '#warden/catalog/contracts';
import { compileComparator } from './comparators.js';
import type { ConditionRecord } from './evaluation.model.js';
import type { SignalRegistry } from './signal-registry.js';

type Condition = LeafCondition | ConditionSet;

/** A leaf costs what its signal declares (0 without one); a set, the sum of its children. */
export function conditionCost(condition: LeafCondition | ConditionSet, registry: SignalRegistry): number {
  if (isSet(condition)) {
    let total = 0;
    for (const child of condition.conditions) total += conditionCost(child, registry);
    return total;
  }
  return condition.signal == null ? 0 : registry.cost(condition.signal.type);
}

function isSet(condition: Condition): condition is ConditionSet {
  return Array.isArray((condition as Partial<ConditionSet>).conditions);
}

export interface LeafPlan {
  readonly isSet: false;
  /** Position of the record in document order. */
  readonly index: number;
  readonly path: string;
  readonly cost: number;
  readonly condition: LeafCondition;
  readonly test: (value: unknown) => boolean;
}

export interface SetPlan {
  readonly isSet: true;
  /** -1 for the top-level set, which has no record of its own. */
  readonly index: number;
  readonly path: string;
  readonly cost: number;
  readonly conjunction: ConditionSet['conjunction'];
  /** Children cheapest first; ties keep document order. */
  readonly order: readonly NodePlan[];
}

export type NodePlan = LeafPlan | SetPlan;

export interface Plan {
  readonly registry: SignalRegistry;
  readonly revision: number;
  readonly root: SetPlan;
  /** The 'skipped' record of every condition, by document index; shared and frozen. */
  readonly skipped: readonly ConditionRecord[];
}

/**
 * Paths, evaluation order and compiled comparators depend only on the (immutable, event-sourced)
 * condition set and the registered costs, so they are built once per set, not per item.
 */
const plans = new WeakMap<ConditionSet, Plan>();

export function planFor(set: ConditionSet, registry: SignalRegistry): Plan {
  const cached = plans.get(set);
  if (cached !== undefined && cached.registry === registry && cached.revision === registry.revision) return cached;
  const skipped: ConditionRecord[] = [];
  const root = buildSet(set, -1, '', registry, skipped);
  const plan: Plan = { registry, revision: registry.revision, root, skipped };
  plans.set(set, plan);
  return plan;
}

function buildSet(set: ConditionSet, index: number, path: string, registry: SignalRegistry, skipped: ConditionRecord[]): SetPlan {
  const children: NodePlan[] = [];
  let cost = 0;
  set.conditions.forEach((child, i) => {
    const childPath = path === '' ? `conditions[${i}]` : `${path}.conditions[${i}]`;
    const childIndex = skipped.length;
    skipped.push(Object.freeze({ path: childPath, outcome: 'skipped' as const }));
    const node = isSet(child) ? buildSet(child, childIndex, childPath, registry, skipped) : buildLeaf(child, childIndex, childPath, registry);
    cost += node.cost;
    children.push(node);
  });
  // Array.prototype.sort is stable, so equal costs keep document order.
  const order = children.slice().sort((a, b) => a.cost - b.cost);
  return { isSet: true, index, path, cost, conjunction: set.conjunction, order };
}

function buildLeaf(leaf: LeafCondition, index: number, path: string, registry: SignalRegistry): LeafPlan {
  const cost = leaf.signal == null ? 0 : registry.cost(leaf.signal.type);
  return { isSet: false, index, path, cost, condition: leaf, test: compileComparator(leaf.comparator, leaf.value) };
}
