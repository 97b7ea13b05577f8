/**
 * Three-valued evaluation of a condition set (docs/rules.md, "The condition model") on its plan
 * (condition-plan.ts), with inputs resolved by condition-inputs.ts and values compared by
 * comparators.ts. Pure: signals reach the network and read models only through the SignalContext.
 */
import type { ConditionSet } from '#warden/catalog/contracts';
import { isAbsent, missingInputs, resolveInput } from './condition-inputs.js';
import { type LeafPlan, type NodePlan, type Plan, planFor, type SetPlan } from './condition-plan.js';
import type { ConditionRecord, Outcome, SetEvaluation, Signal, SignalContext } from './evaluation.model.js';
import type { SignalMemo } from './signal-memo.js';
import type { SignalRegistry } from './signal-registry.js';

/** Signals below this declared cost (pure in-memory text and geo work) are not memoized. */
export const MEMO_MIN_COST = 10;

export interface EvaluatorDeps {
  registry: SignalRegistry;
  memo: SignalMemo;
}

type Records = Array<ConditionRecord | undefined>;

/**
 * Synchronous when every signal the evaluation reaches answers synchronously (the in-memory text
 * and geo signals do): an item runs dozens of leaves, and a promise per leaf and per set was a
 * measurable part of evaluating it. A signal that answers with a promise makes the rest async.
 */
export function evaluateConditionSet(set: ConditionSet, ctx: SignalContext, deps: EvaluatorDeps): SetEvaluation | Promise<SetEvaluation> {
  const plan = planFor(set, deps.registry);
  const records: Records = new Array<ConditionRecord | undefined>(plan.skipped.length);
  const outcome = evaluateSet(plan.root, ctx, deps, records);
  return typeof outcome === 'string' ? completed(plan, records, outcome) : outcome.then((o) => completed(plan, records, o));
}

function completed(plan: Plan, records: Records, outcome: Outcome): SetEvaluation {
  const conditions = records as ConditionRecord[];
  for (let i = 0; i < conditions.length; i++) {
    // Unvisited slots are the children short-circuiting skipped, and everything inside them.
    if (conditions[i] === undefined) conditions[i] = plan.skipped[i] as ConditionRecord;
  }
  return { outcome, conditions };
}

// ---------- sets ----------

interface Tally {
  passed: number;
  unknown: number;
}

function evaluateSet(plan: SetPlan, ctx: SignalContext, deps: EvaluatorDeps, records: Records): Outcome | Promise<Outcome> {
  const tally: Tally = { passed: 0, unknown: 0 };
  const { order } = plan;
  for (let i = 0; i < order.length; i++) {
    const child = order[i] as NodePlan;
    const result = child.isSet ? evaluateSet(child, ctx, deps, records) : evaluateLeaf(child, ctx, deps, records);
    if (typeof result !== 'string') return evaluateRestOfSet(plan, ctx, deps, records, tally, i, result);
    const decided = count(plan.conjunction, tally, result);
    if (decided !== undefined) return settle(plan, records, decided);
  }
  return settle(plan, records, undecided(plan.conjunction, tally));
}

/** evaluateSet from child `index` on, once that child's outcome turned out to be a promise. */
async function evaluateRestOfSet(
  plan: SetPlan,
  ctx: SignalContext,
  deps: EvaluatorDeps,
  records: Records,
  tally: Tally,
  index: number,
  pending: Promise<Outcome>,
): Promise<Outcome> {
  const { order } = plan;
  let outcome = await pending;
  for (let i = index; ;) {
    const decided = count(plan.conjunction, tally, outcome);
    if (decided !== undefined) return settle(plan, records, decided);
    if (++i >= order.length) break;
    const child = order[i] as NodePlan;
    const result = child.isSet ? evaluateSet(child, ctx, deps, records) : evaluateLeaf(child, ctx, deps, records);
    outcome = typeof result === 'string' ? result : await result;
  }
  return settle(plan, records, undecided(plan.conjunction, tally));
}

/** Counts a child's outcome; returns the set's outcome once the children seen so far decide it. */
function count(conjunction: ConditionSet['conjunction'], tally: Tally, outcome: Outcome): Outcome | undefined {
  if (outcome === 'passed') tally.passed += 1;
  else if (outcome === 'unknown') tally.unknown += 1;
  if (conjunction === 'AND' && outcome === 'failed') return 'failed';
  if (conjunction === 'OR' && outcome === 'passed') return 'passed';
  // XOR must see every child to know that exactly one passed, but a second pass settles it.
  if (conjunction === 'XOR' && tally.passed >= 2) return 'failed';
  return undefined;
}

/** The outcome of a set whose every child was seen without deciding it early. */
function undecided(conjunction: ConditionSet['conjunction'], tally: Tally): Outcome {
  if (tally.unknown > 0) return 'unknown';
  if (conjunction === 'AND') return 'passed';
  if (conjunction === 'OR') return 'failed';
  return tally.passed === 1 ? 'passed' : 'failed';
}

function settle(plan: SetPlan, records: Records, outcome: Outcome): Outcome {
  if (plan.index >= 0) records[plan.index] = { path: plan.path, outcome };
  return outcome;
}

// ---------- leaves ----------

/** Synchronous unless a signal has to run, so signal-free leaves cost no promise. */
function evaluateLeaf(plan: LeafPlan, ctx: SignalContext, deps: EvaluatorDeps, records: Records): Outcome | Promise<Outcome> {
  if (ctx.item.partial === true) {
    const missing = missingInputs(plan.condition, ctx.item);
    if (missing !== null) return evaluateIncompleteLeaf(plan, ctx, deps, records, missing);
  }
  return evaluateCompleteLeaf(plan, ctx, deps, records);
}

/**
 * A leaf of a partial item whose input depends on fields the item did not carry: never a silent
 * `false` (docs/partial-items.md). A single-valued input (a field, the creator, the whole item) is
 * unknown. ALL_TEXT and ANY_IMAGE pass when any element passes, so a pass on the elements sent
 * holds whatever else the item has; anything else is unknown until the whole item is seen.
 */
function evaluateIncompleteLeaf(
  plan: LeafPlan,
  ctx: SignalContext,
  deps: EvaluatorDeps,
  records: Records,
  missing: readonly string[],
): Outcome | Promise<Outcome> {
  const input = plan.condition.input;
  const anyOf = 'builtin' in input && (input.builtin === 'ALL_TEXT' || input.builtin === 'ANY_IMAGE');
  if (!anyOf) return notSent(plan, records, missing);
  const decide = (outcome: Outcome): Outcome => {
    const holds = plan.condition.comparator === 'IS_NOT_PROVIDED' ? outcome === 'failed' : outcome === 'passed';
    return holds ? outcome : notSent(plan, records, missing);
  };
  const result = evaluateCompleteLeaf(plan, ctx, deps, records);
  return typeof result === 'string' ? decide(result) : result.then(decide);
}

function notSent(plan: LeafPlan, records: Records, missing: readonly string[]): Outcome {
  records[plan.index] = { path: plan.path, outcome: 'unknown', error: `partial item: ${missing.join(', ')} not sent`, missing };
  return 'unknown';
}

function evaluateCompleteLeaf(plan: LeafPlan, ctx: SignalContext, deps: EvaluatorDeps, records: Records): Outcome | Promise<Outcome> {
  const leaf = plan.condition;
  const input = resolveInput(leaf, ctx.item);
  if (isAbsent(input)) {
    // Not applicable: only IS_NOT_PROVIDED holds, and no signal runs.
    const outcome: Outcome = leaf.comparator === 'IS_NOT_PROVIDED' ? 'passed' : 'failed';
    records[plan.index] = { path: plan.path, outcome };
    return outcome;
  }
  const signalRef = leaf.signal;
  if (leaf.comparator === 'IS_NOT_PROVIDED') {
    records[plan.index] = signalRef == null ? { path: plan.path, outcome: 'failed', value: input } : { path: plan.path, outcome: 'failed' };
    return 'failed';
  }
  if (signalRef == null) return evaluatePlainLeaf(plan, input, records);
  const signal = deps.registry.get(signalRef.type);
  if (signal === undefined) {
    const outcome: Outcome = leaf.comparator === 'IS_UNAVAILABLE' ? 'passed' : 'unknown';
    records[plan.index] = { path: plan.path, outcome, error: `signal ${signalRef.type} is not available` };
    return outcome;
  }
  return evaluateSignalLeaf(plan, signal, signalRef.args, input, ctx, deps, records);
}

function evaluatePlainLeaf(plan: LeafPlan, input: unknown, records: Records): Outcome {
  // Without a signal nothing can be unavailable.
  const unavailable = plan.condition.comparator === 'IS_UNAVAILABLE';
  if (!Array.isArray(input)) {
    const outcome: Outcome = !unavailable && plan.test(input) ? 'passed' : 'failed';
    records[plan.index] = { path: plan.path, outcome, value: input };
    return outcome;
  }
  if (!unavailable) {
    for (const element of input) {
      if (element != null && plan.test(element)) {
        records[plan.index] = { path: plan.path, outcome: 'passed', value: element };
        return 'passed';
      }
    }
  }
  records[plan.index] = { path: plan.path, outcome: 'failed', value: input[0] };
  return 'failed';
}

/** What one leaf's elements gave so far. */
interface LeafScan {
  computed: boolean;
  firstValue: unknown;
  firstError: string | undefined;
}

function evaluateSignalLeaf(
  plan: LeafPlan,
  signal: Signal,
  args: { readonly [key: string]: unknown },
  input: unknown,
  ctx: SignalContext,
  deps: EvaluatorDeps,
  records: Records,
): Outcome | Promise<Outcome> {
  const elements = Array.isArray(input) ? (input as readonly unknown[]) : undefined;
  const total = elements === undefined ? 1 : elements.length;
  const scan: LeafScan = { computed: false, firstValue: undefined, firstError: undefined };
  for (let i = 0; i < total; i++) {
    const element = elements === undefined ? input : elements[i];
    // An absent element is not applicable, like an absent input.
    if (element == null) continue;
    let value: unknown;
    try {
      value = computeSignal(signal, args, element, ctx, deps);
    } catch (error) {
      const decided = signalFailed(plan, scan, records, errorMessage(error));
      if (decided !== undefined) return decided;
      continue;
    }
    if (isThenable(value)) return evaluateRestOfLeaf(plan, signal, args, elements, input, ctx, deps, records, scan, i, value);
    const decided = signalAnswered(plan, signal, args, scan, records, element, value, ctx);
    if (decided !== undefined) return decided;
  }
  return leafUndecided(plan, scan, records);
}

/** evaluateSignalLeaf from element `index` on, once a signal answered with a promise. */
async function evaluateRestOfLeaf(
  plan: LeafPlan,
  signal: Signal,
  args: { readonly [key: string]: unknown },
  elements: readonly unknown[] | undefined,
  input: unknown,
  ctx: SignalContext,
  deps: EvaluatorDeps,
  records: Records,
  scan: LeafScan,
  index: number,
  pending: PromiseLike<unknown>,
): Promise<Outcome> {
  const total = elements === undefined ? 1 : elements.length;
  for (let i = index; i < total; i++) {
    const element = elements === undefined ? input : elements[i];
    if (element == null) continue;
    let value: unknown;
    try {
      value = await (i === index ? pending : computeSignal(signal, args, element, ctx, deps));
    } catch (error) {
      const decided = signalFailed(plan, scan, records, errorMessage(error));
      if (decided !== undefined) return decided;
      continue;
    }
    const decided = signalAnswered(plan, signal, args, scan, records, element, value, ctx);
    if (decided !== undefined) return decided;
  }
  return leafUndecided(plan, scan, records);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function computeSignal(signal: Signal, args: { readonly [key: string]: unknown }, element: unknown, ctx: SignalContext, deps: EvaluatorDeps): unknown {
  // In-memory signals are cheaper to recompute than to memoize (key building and lookup).
  return signal.cost < MEMO_MIN_COST || signal.memoized === false
    ? signal.evaluate(element, args, ctx)
    : deps.memo.lookup(ctx.orgId, signal.type, args, element, async () => signal.evaluate(element, args, ctx));
}

/** A signal threw: IS_UNAVAILABLE passes at once; otherwise the leaf is unknown unless another element passes. */
function signalFailed(plan: LeafPlan, scan: LeafScan, records: Records, message: string): Outcome | undefined {
  if (plan.condition.comparator === 'IS_UNAVAILABLE') {
    records[plan.index] = { path: plan.path, outcome: 'passed', error: message };
    return 'passed';
  }
  scan.firstError ??= message;
  return undefined;
}

function signalAnswered(
  plan: LeafPlan,
  signal: Signal,
  args: { readonly [key: string]: unknown },
  scan: LeafScan,
  records: Records,
  element: unknown,
  value: unknown,
  ctx: SignalContext,
): Outcome | undefined {
  if (plan.condition.comparator !== 'IS_UNAVAILABLE' && plan.test(value)) {
    const detail = explain(signal, element, args, value, ctx);
    records[plan.index] = detail === undefined ? { path: plan.path, outcome: 'passed', value } : { path: plan.path, outcome: 'passed', value, detail };
    return 'passed';
  }
  if (!scan.computed) {
    scan.computed = true;
    scan.firstValue = value;
  }
  return undefined;
}

function leafUndecided(plan: LeafPlan, scan: LeafScan, records: Records): Outcome {
  const outcome: Outcome = scan.firstError === undefined ? 'failed' : 'unknown';
  const record: { path: string; outcome: Outcome; value?: unknown; error?: string } = { path: plan.path, outcome };
  if (scan.computed) record.value = scan.firstValue;
  if (scan.firstError !== undefined) record.error = scan.firstError;
  records[plan.index] = record;
  return outcome;
}

/** Detail is only worth its cost where it explains a pass; a faulty explain never fails the leaf. */
function explain(signal: Signal, input: unknown, args: { readonly [key: string]: unknown }, value: unknown, ctx: SignalContext) {
  if (signal.explain === undefined) return undefined;
  try {
    return signal.explain(input, args, value, ctx);
  } catch {
    return undefined;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
