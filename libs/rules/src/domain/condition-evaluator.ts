/**
 * Three-valued evaluation of a condition set (org-config.md, "The condition model").
 * Pure: signals reach the network and read models only through the SignalContext.
 */
import type { Comparator, ConditionSet, LeafCondition } from '../../../catalog/src/index.js';
import type { ConditionRecord, EvaluatedItem, Outcome, SetEvaluation, Signal, SignalContext } from './evaluation.model.js';
import type { SignalMemo } from './signal-memo.js';

/** Signals below this declared cost (pure in-memory text and geo work) are not memoized. */
export const MEMO_MIN_COST = 10;
import type { SignalRegistry } from './signal-registry.js';

export interface EvaluatorDeps {
  registry: SignalRegistry;
  memo: SignalMemo;
}

type Condition = LeafCondition | ConditionSet;
type Records = Array<ConditionRecord | undefined>;

export async function evaluateConditionSet(
  set: ConditionSet,
  ctx: SignalContext,
  deps: EvaluatorDeps,
): Promise<SetEvaluation> {
  const plan = planFor(set, deps.registry);
  const records: Records = new Array<ConditionRecord | undefined>(plan.skipped.length);
  const outcome = await evaluateSet(plan.root, ctx, deps, records);
  const conditions = records as ConditionRecord[];
  for (let i = 0; i < conditions.length; i++) {
    // Unvisited slots are the children short-circuiting skipped, and everything inside them.
    if (conditions[i] === undefined) conditions[i] = plan.skipped[i] as ConditionRecord;
  }
  return { outcome, conditions };
}

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

// ---------- plans ----------

interface LeafPlan {
  readonly isSet: false;
  /** Position of the record in document order. */
  readonly index: number;
  readonly path: string;
  readonly cost: number;
  readonly condition: LeafCondition;
  readonly test: (value: unknown) => boolean;
}

interface SetPlan {
  readonly isSet: true;
  /** -1 for the top-level set, which has no record of its own. */
  readonly index: number;
  readonly path: string;
  readonly cost: number;
  readonly conjunction: ConditionSet['conjunction'];
  /** Children cheapest first; ties keep document order. */
  readonly order: readonly NodePlan[];
}

type NodePlan = LeafPlan | SetPlan;

interface Plan {
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

function planFor(set: ConditionSet, registry: SignalRegistry): Plan {
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
    const node = isSet(child)
      ? buildSet(child, childIndex, childPath, registry, skipped)
      : buildLeaf(child, childIndex, childPath, registry);
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

// ---------- sets ----------

async function evaluateSet(plan: SetPlan, ctx: SignalContext, deps: EvaluatorDeps, records: Records): Promise<Outcome> {
  const { conjunction, order } = plan;
  let passed = 0;
  let unknown = 0;
  let decided: Outcome | undefined;
  for (let i = 0; i < order.length; i++) {
    const child = order[i] as NodePlan;
    const result = child.isSet ? evaluateSet(child, ctx, deps, records) : evaluateLeaf(child, ctx, deps, records);
    const outcome = typeof result === 'string' ? result : await result;
    if (outcome === 'passed') passed += 1;
    else if (outcome === 'unknown') unknown += 1;
    if (conjunction === 'AND' && outcome === 'failed') {
      decided = 'failed';
      break;
    }
    if (conjunction === 'OR' && outcome === 'passed') {
      decided = 'passed';
      break;
    }
    // XOR must see every child to know that exactly one passed, but a second pass settles it.
    if (conjunction === 'XOR' && passed >= 2) {
      decided = 'failed';
      break;
    }
  }
  if (decided === undefined) {
    if (unknown > 0) decided = 'unknown';
    else if (conjunction === 'AND') decided = 'passed';
    else if (conjunction === 'OR') decided = 'failed';
    else decided = passed === 1 ? 'passed' : 'failed';
  }
  if (plan.index >= 0) records[plan.index] = { path: plan.path, outcome: decided };
  return decided;
}

// ---------- leaves ----------

/** Synchronous unless a signal has to run, so signal-free leaves cost no promise. */
function evaluateLeaf(plan: LeafPlan, ctx: SignalContext, deps: EvaluatorDeps, records: Records): Outcome | Promise<Outcome> {
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

async function evaluateSignalLeaf(
  plan: LeafPlan,
  signal: Signal,
  args: { readonly [key: string]: unknown },
  input: unknown,
  ctx: SignalContext,
  deps: EvaluatorDeps,
  records: Records,
): Promise<Outcome> {
  const unavailable = plan.condition.comparator === 'IS_UNAVAILABLE';
  const elements = Array.isArray(input) ? (input as readonly unknown[]) : undefined;
  const count = elements === undefined ? 1 : elements.length;
  let computed = false;
  let firstValue: unknown;
  let firstError: string | undefined;
  for (let i = 0; i < count; i++) {
    const element = elements === undefined ? input : elements[i];
    // An absent element is not applicable, like an absent input.
    if (element == null) continue;
    let value: unknown;
    try {
      // In-memory signals are cheaper to recompute than to memoize (key building and lookup).
      value =
        signal.cost < MEMO_MIN_COST
          ? await signal.evaluate(element, args, ctx)
          : await deps.memo.lookup(ctx.orgId, signal.type, args, element, () => signal.evaluate(element, args, ctx));
    } catch (error) {
      const message = errorMessage(error);
      if (unavailable) {
        records[plan.index] = { path: plan.path, outcome: 'passed', error: message };
        return 'passed';
      }
      firstError ??= message;
      continue;
    }
    if (!unavailable && plan.test(value)) {
      const detail = explain(signal, element, args, value);
      records[plan.index] =
        detail === undefined ? { path: plan.path, outcome: 'passed', value } : { path: plan.path, outcome: 'passed', value, detail };
      return 'passed';
    }
    if (!computed) {
      computed = true;
      firstValue = value;
    }
  }
  const outcome: Outcome = firstError === undefined ? 'failed' : 'unknown';
  const record: { path: string; outcome: Outcome; value?: unknown; error?: string } = { path: plan.path, outcome };
  if (computed) record.value = firstValue;
  if (firstError !== undefined) record.error = firstError;
  records[plan.index] = record;
  return outcome;
}

/** Detail is only worth its cost where it explains a pass; a faulty explain never fails the leaf. */
function explain(signal: Signal, input: unknown, args: { readonly [key: string]: unknown }, value: unknown) {
  if (signal.explain === undefined) return undefined;
  try {
    return signal.explain(input, args, value);
  } catch {
    return undefined;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---------- inputs ----------

function isAbsent(value: unknown): boolean {
  return value == null || (Array.isArray(value) && value.length === 0);
}

function ownValue(record: { readonly [key: string]: unknown }, key: string): unknown {
  // Own properties only: `constructor` or `__proto__` must not resolve to Object.prototype.
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function isRecord(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface DerivedInputs {
  allText?: readonly string[] | null;
  anyImage?: readonly unknown[] | null;
  item?: { id: string; typeId: string; data: EvaluatedItem['data'] };
}

/** Derived inputs are computed once per item and shared by every rule evaluating it. */
const derivedInputs = new WeakMap<EvaluatedItem, DerivedInputs>();

function derived(item: EvaluatedItem): DerivedInputs {
  let inputs = derivedInputs.get(item);
  if (inputs === undefined) {
    inputs = {};
    derivedInputs.set(item, inputs);
  }
  return inputs;
}

/**
 * Arrays resolve to arrays: the evaluator treats any array value as "any element passes".
 * REPORT_REASON, REPORTED_POLICY and REPORT_COUNT come from `data.__report.{reason, policyId,
 * count}`, which the routing of reports puts on the item it evaluates; absent elsewhere.
 */
function resolveInput(leaf: LeafCondition, item: EvaluatedItem): unknown {
  const input = leaf.input;
  if ('field' in input) return ownValue(item.data, input.field);
  switch (input.builtin) {
    case 'ALL_TEXT': {
      const inputs = derived(item);
      if (inputs.allText === undefined) inputs.allText = collectAllText(item);
      return inputs.allText;
    }
    case 'ANY_IMAGE': {
      const inputs = derived(item);
      if (inputs.anyImage === undefined) inputs.anyImage = collectImages(item);
      return inputs.anyImage;
    }
    case 'CREATOR':
      return item.creator;
    case 'ITEM': {
      const inputs = derived(item);
      inputs.item ??= { id: item.id, typeId: item.typeId, data: item.data };
      return inputs.item;
    }
    case 'REPORT_REASON':
      return reportValue(item, 'reason');
    case 'REPORTED_POLICY':
      return reportValue(item, 'policyId');
    case 'REPORT_COUNT':
      return reportValue(item, 'count');
    default:
      return undefined;
  }
}

function reportValue(item: EvaluatedItem, key: string): unknown {
  const report = ownValue(item.data, '__report');
  return isRecord(report) ? ownValue(report, key) : undefined;
}

function collectAllText(item: EvaluatedItem): readonly string[] | null {
  const texts: string[] = [];
  for (const field of item.itemType.fields) {
    if (field.type !== 'STRING') continue;
    const value = ownValue(item.data, field.name);
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) for (const element of value) if (typeof element === 'string') texts.push(element);
  }
  return texts.length === 0 ? null : texts;
}

const IMAGES_KEY = 'images';

function collectImages(item: EvaluatedItem): readonly unknown[] | null {
  const images: unknown[] = [];
  let imagesDeclared = false;
  const add = (value: unknown) => {
    if (Array.isArray(value)) {
      for (const element of value) if (element != null) images.push(element);
    } else if (value != null) images.push(value);
  };
  for (const field of item.itemType.fields) {
    if (field.name === IMAGES_KEY) imagesDeclared = true;
    if (field.type === 'IMAGE') add(ownValue(item.data, field.name));
  }
  // A declared `images` IMAGE field was already collected above.
  if (!imagesDeclared) add(ownValue(item.data, IMAGES_KEY));
  return images.length === 0 ? null : images;
}

// ---------- comparators ----------

/** Compiles a comparator against its configured value; applied to present values only. */
function compileComparator(comparator: Comparator, expected: unknown): (actual: unknown) => boolean {
  switch (comparator) {
    case 'EQUALS':
      return (actual) => deepEqual(actual, expected);
    case 'NOT_EQUAL_TO':
      return (actual) => !deepEqual(actual, expected);
    case 'LT':
      return compileOrdering(expected, (c) => c < 0);
    case 'LTE':
      return compileOrdering(expected, (c) => c <= 0);
    case 'GT':
      return compileOrdering(expected, (c) => c > 0);
    case 'GTE':
      return compileOrdering(expected, (c) => c >= 0);
    case 'CONTAINS':
      return (actual) => {
        if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
        if (Array.isArray(actual)) return actual.some((element) => deepEqual(element, expected));
        return false;
      };
    default:
      // IS_UNAVAILABLE and IS_NOT_PROVIDED are decided by the evaluator, not by a value.
      return () => false;
  }
}

function compileOrdering(expected: unknown, holds: (comparison: number) => boolean): (actual: unknown) => boolean {
  if (typeof expected === 'number') {
    if (Number.isNaN(expected)) return () => false;
    return (actual) => typeof actual === 'number' && !Number.isNaN(actual) && holds(actual === expected ? 0 : actual < expected ? -1 : 1);
  }
  const expectedTime = typeof expected === 'string' ? isoToMillis(expected) : undefined;
  if (expectedTime === undefined) return () => false;
  return (actual) => {
    if (typeof actual !== 'string') return false;
    const time = isoToMillis(actual);
    return time !== undefined && holds(time === expectedTime ? 0 : time < expectedTime ? -1 : 1);
  };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as { [key: string]: unknown };
  const right = b as { [key: string]: unknown };
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) if (!Object.hasOwn(right, key) || !deepEqual(left[key], right[key])) return false;
  return true;
}

/**
 * `YYYY-MM-DD[Thh:mm[:ss[.fff]][Z|±hh[:mm]]]`, the DATETIME shape item validation accepts plus
 * date-only values. Without an offset the time is read as UTC, so comparisons never depend on
 * the server's time zone.
 */
const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

function isoToMillis(text: string): number | undefined {
  if (text.length < 10 || text.length > 40) return undefined;
  const match = ISO_DATETIME.exec(text);
  if (match === null) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = Number(match[4] ?? 0);
  const minute = Number(match[5] ?? 0);
  const second = Number(match[6] ?? 0);
  const millis = match[7] === undefined ? 0 : Number(match[7].slice(0, 3).padEnd(3, '0'));
  const offsetHours = Number(match[10] ?? 0);
  const offsetMinutes = Number(match[11] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offset = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  let time = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC reads years 0-99 as 1900-1999.
  if (year < 100) time = new Date(time).setUTCFullYear(year);
  return time - offset;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
