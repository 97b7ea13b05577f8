import type { ActionCallbackRequested, ActionEnvironment } from '#warden/callbacks/contracts';
import type { Penalty } from '#warden/catalog/contracts';
import type { DomainEvent } from '#warden/kernel';
import type { ReviewEnqueueRequested } from '#warden/review/contracts';
import type { ConditionRecord, Outcome } from './evaluation.model.js';

/** Where an evaluation ran: only LIVE (for LIVE rules), RETROACTION and MANUAL publish actions. */
export type Environment = ActionEnvironment;

export interface RuleResult {
  id: string;
  name: string;
  status: string;
  outcome: Outcome;
  /**
   * The digest of the rule's definition as evaluated (ruleDefinitionDigest: canonical JSON of the
   * catalog's rule, SHA-256, base64url), so that an evaluation names exactly the rule it ran, even
   * after the rule was changed (docs/rules.md). Absent in evaluations recorded before it was.
   */
  definition?: string;
  /** Passed, but the rule's maxDailyActions for the UTC day was already reached. */
  capped: boolean;
  conditions: ConditionRecord[];
}

export interface PublishedAction {
  id: string;
  kind: 'CUSTOMER_DEFINED_ACTION' | 'ENQUEUE_TO_MRT' | 'ENQUEUE_TO_CHILD_SAFETY';
  policies: Array<{ id: string; name: string; penalty: Penalty }>;
  rules: Array<{ id: string; name: string }>;
}

export interface ItemRef {
  id: string;
  typeId: string;
  typeName: string;
}

/** The outcome of every rule and condition for one item version (explainability). */
export interface Evaluation {
  item: ItemRef;
  version: number;
  environment: Environment;
  subject: string;
  rules: RuleResult[];
  actions: PublishedAction[];
}

/**
 * A condition record as stored. The usual shapes are tuples, `[path, outcome]` or
 * `[path, outcome, answer]` (a signal's boolean, or null), with the path shortened to its indices
 * (`conditions[1].conditions[0]` → `"1.0"`, the rule's top-level set → `""`); any other record
 * (one with an error, say) is kept as the full object. Version 1 events also had
 * `[path, outcome, value]` with any value and `[path, outcome, value, detail]` (the upcaster moves
 * those values out, as version 2 keeps them).
 */
export type StoredConditionRecord = [string, ConditionRecord['outcome'], ...unknown[]] | ConditionRecord;

/** A rule's result as stored: `capped` only when true, conditions in their stored form. */
export interface StoredRuleResult {
  id: string;
  name: string;
  status: string;
  outcome: Outcome;
  definition?: string;
  capped?: true;
  conditions: StoredConditionRecord[];
}

/** A condition's value and detail: `[value]`, `[value, detail]`, `{d: detail}` alone, or null for none kept here. */
export type StoredConditionValue = [unknown] | [unknown, ConditionRecord['detail']] | { d: ConditionRecord['detail'] } | null;

/**
 * The evaluation as recorded in the log (version 2). Every item evaluated records every condition
 * of every rule, so the record is written compactly (see StoredConditionRecord): about half the
 * size of the plain form, which is most of what recording an evaluation costs.
 *
 * A signal's yes/no answer says nothing of the user and stays in the tuple. Any other value (a
 * number the user gave, compared without a signal) and any detail (a distance, a matched bank
 * entry) can be the user's data seen through a rule: they go to `conditionValues[rule][condition]`,
 * sealed under the item's subject like the item's own data, so a GDPR deletion erases them too
 * (null once erased; absent when the evaluation has none, the usual case, which then costs no
 * sealing at all).
 */
export type ItemEvaluated = DomainEvent<
  'ItemEvaluated',
  Omit<Evaluation, 'rules'> & {
    rules: StoredRuleResult[];
    conditionValues?: StoredConditionValue[][] | null;
    /**
     * The version's content key (item-content.ts), sealed under the item's subject like what the
     * conditions saw: the next version's key starts from it instead of reading back through every
     * identical version (ContentKeyReader). Absent in evaluations recorded before it was kept;
     * null once erased.
     */
    content?: string | null;
  }
>;

/**
 * v2 adds `content`, the digest of the item content counted (item-content.ts), so that identical
 * content re-submitted the same day is counted once; null in v1 events, which counted versions.
 */
export type RuleDailyActionCounted = DomainEvent<
  'RuleDailyActionCounted',
  { ruleId: string; item: { id: string; typeId: string }; version: number; content: string | null }
>;

/**
 * What an evaluation appends: its record, and the actions it publishes, whose contracts their
 * consumers own (ActionCallbackRequested the callbacks module's, ReviewEnqueueRequested review's).
 */
export type EvaluationEvent = ItemEvaluated | ActionCallbackRequested | ReviewEnqueueRequested;

/** The stored form of an evaluation (ItemEvaluated's data). */
export function encodeEvaluation(evaluation: Evaluation): ItemEvaluated['data'] {
  const rules: StoredRuleResult[] = [];
  const conditionValues: StoredConditionValue[][] = [];
  let sealed = false;
  for (const result of evaluation.rules) {
    const stored: StoredRuleResult = { id: result.id, name: result.name, status: result.status, outcome: result.outcome, conditions: [] };
    if (result.definition !== undefined) stored.definition = result.definition;
    if (result.capped) stored.capped = true;
    const values: StoredConditionValue[] = [];
    for (const { value, detail, ...rest } of result.conditions) {
      const answer = detail === undefined && (value === undefined || value === null || typeof value === 'boolean');
      stored.conditions.push(encodeCondition(rest, answer ? value : undefined));
      values.push(answer ? null : storedValue(value, detail));
      sealed ||= !answer;
    }
    rules.push(stored);
    conditionValues.push(values);
  }
  return sealed ? { ...evaluation, rules, conditionValues } : { ...evaluation, rules };
}

/** An evaluation as recorded, compact or (written before the compact form) plain. */
export function decodeEvaluation(data: ItemEvaluated['data']): Evaluation {
  const { conditionValues, rules, content: _content, ...rest } = data;
  return { ...rest, rules: rules.map((rule, i) => decodeRuleResult(rule, conditionValues?.[i])) };
}

/** Version 1 kept each condition's value and detail inline, in plaintext: moved out, as version 2 keeps them. */
export function evaluationV1ToV2(data: Omit<ItemEvaluated['data'], 'conditionValues'>): ItemEvaluated['data'] {
  return encodeEvaluation(decodeEvaluation({ ...data, conditionValues: null }));
}

function decodeRuleResult(stored: StoredRuleResult, values: readonly StoredConditionValue[] | undefined): RuleResult {
  const { capped, conditions, ...rest } = stored;
  return { ...rest, capped: capped === true, conditions: conditions.map((c, i) => decodeCondition(c, values?.[i] ?? null)) };
}

const PATH_STEP = /^conditions\[(\d+)\]$/;

/** Rules share their condition paths, so each is shortened once; null: not of the usual form. */
const shortPaths = new Map<string, string | null>();

function shortPath(path: string): string | null {
  let short = shortPaths.get(path);
  if (short === undefined) {
    const steps = path === '' ? [] : path.split('.').map((step) => PATH_STEP.exec(step)?.[1]);
    short = steps.some((s) => s === undefined) ? null : steps.join('.');
    if (shortPaths.size >= 10_000) shortPaths.clear();
    shortPaths.set(path, short);
  }
  return short;
}

function encodeCondition(record: Omit<ConditionRecord, 'value' | 'detail'>, answer: unknown): StoredConditionRecord {
  const short = shortPath(record.path);
  if (record.error !== undefined || short === null) return answer === undefined ? record : { ...record, value: answer };
  return answer === undefined ? [short, record.outcome] : [short, record.outcome, answer];
}

function storedValue(value: unknown, detail: ConditionRecord['detail']): StoredConditionValue {
  if (value === undefined) return detail === undefined ? null : { d: detail };
  return detail === undefined ? [value] : [value, detail];
}

function decodeCondition(stored: StoredConditionRecord, values: StoredConditionValue): ConditionRecord {
  const record = decodeRecord(stored);
  if (!values) return record;
  if (!Array.isArray(values)) return { ...record, detail: values.d };
  return values.length === 1 ? { ...record, value: values[0] } : { ...record, value: values[0], detail: values[1] };
}

function decodeRecord(stored: StoredConditionRecord): ConditionRecord {
  if (!Array.isArray(stored)) return stored;
  const [short, outcome, ...rest] = stored;
  const path =
    short === ''
      ? ''
      : short
          .split('.')
          .map((i) => `conditions[${i}]`)
          .join('.');
  if (rest.length === 0) return { path, outcome };
  if (rest.length === 1) return { path, outcome, value: rest[0] };
  return { path, outcome, value: rest[0], detail: rest[1] as ConditionRecord['detail'] };
}
