/**
 * Three-valued evaluation of a condition set (docs/rules.md, "The condition model").
 * Pure: signals reach the network and read models only through the SignalContext.
 */
import type { Comparator, ConditionSet, LeafCondition } from '#warden/catalog/contracts';
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

/** The declared fields a leaf's input reads that a partial item does not carry; null when it carries them all. */
function missingInputs(leaf: LeafCondition, item: EvaluatedItem): readonly string[] | null {
  const input = leaf.input;
  const absent = (names: readonly string[]) => {
    const missing = names.filter((name) => !Object.hasOwn(item.data, name));
    return missing.length === 0 ? null : missing;
  };
  const declared = (type?: string) => item.itemType.fields.filter((f) => type === undefined || f.type === type).map((f) => f.name);
  if ('field' in input) return absent([input.field]);
  switch (input.builtin) {
    case 'ALL_TEXT':
      return absent(declared('STRING'));
    case 'ANY_IMAGE':
      return absent(declared('IMAGE'));
    case 'ITEM':
      return absent(declared());
    case 'CREATOR': {
      const role = item.itemType.roles?.['creator'];
      return item.creator === null && typeof role === 'string' ? absent([role]) : null;
    }
    default:
      return null;
  }
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
    const decided = signalAnswered(plan, signal, args, scan, records, element, value);
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
    const decided = signalAnswered(plan, signal, args, scan, records, element, value);
    if (decided !== undefined) return decided;
  }
  return leafUndecided(plan, scan, records);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function computeSignal(signal: Signal, args: { readonly [key: string]: unknown }, element: unknown, ctx: SignalContext, deps: EvaluatorDeps): unknown {
  // In-memory signals are cheaper to recompute than to memoize (key building and lookup).
  return signal.cost < MEMO_MIN_COST
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
): Outcome | undefined {
  if (plan.condition.comparator !== 'IS_UNAVAILABLE' && plan.test(value)) {
    const detail = explain(signal, element, args, value);
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
const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

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
