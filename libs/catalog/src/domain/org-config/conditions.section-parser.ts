import * as z from 'zod';
import {
  BUILTIN_INPUTS,
  COMPARATORS,
  type ConditionInput,
  type ConditionSet,
  type ConditionSignal,
  CONJUNCTIONS,
  FIELD_TYPES,
  type FieldType,
  type LeafCondition,
  REPORT_INPUTS,
  SIGNAL_TYPES,
  type SignalType,
} from '../catalog.model.js';
import { httpUrlSchema, idSchema, jsonObjectSchema, positiveInt, regexSchema, termsSchema } from './common-fields.schema.js';
import { parseIsoDateTime } from '../iso-datetime.js';
import { isRecord, type Path } from './config-problems.js';
import { type CheckContext, checkReference, checkReferenceList } from './cross-references.checker.js';
import { PDQ_MAX_DISTANCE } from './hash-banks.section-parser.js';
import { isId, isOneOf, listAt, stringAt } from './raw-document.reader.js';
import { forwardIssues, PARSE_PARAMS } from './schema-issues.js';

// The `conditionSet` of rules and routing rules: shape here, references to fields and banks below.

type Condition = LeafCondition | ConditionSet;

const VALUELESS_COMPARATORS: ReadonlySet<string> = new Set(['IS_UNAVAILABLE', 'IS_NOT_PROVIDED']);

const inputSchema = z
  .strictObject({ field: z.string().min(1).optional(), builtin: z.enum(BUILTIN_INPUTS).optional() })
  .transform((input, ctx): ConditionInput => {
    if (input.field !== undefined && input.builtin === undefined) return { field: input.field };
    if (input.builtin !== undefined && input.field === undefined) return { builtin: input.builtin };
    ctx.addIssue({ code: 'custom', message: 'must have exactly one of field or builtin', input });
    return z.NEVER;
  });

const latitude = z.number().min(-90).max(90);
const longitude = z.number().min(-180).max(180);

/**
 * Each signal's arguments (docs/rules.md, "Evaluation"); references to banks are checked later,
 * against the whole file. Strict: an argument under another name, such as `bankId` for
 * IMAGE_HASH_MATCH's `bankIds`, was accepted and ignored, so the leaf matched against every bank
 * instead of the one meant.
 */
const SIGNAL_ARGS: Record<SignalType, z.ZodObject> = {
  TEXT_CONTAINS: z.strictObject({
    terms: termsSchema.min(1),
    caseSensitive: z.boolean().optional(),
    wholeWord: z.boolean().optional(),
  }),
  TEXT_MATCHES_REGEX: z.strictObject({ pattern: regexSchema }),
  TEXT_BANK: z.strictObject({ bankId: idSchema }),
  IMAGE_HASH_MATCH: z.strictObject({
    bankIds: z.array(idSchema).optional(),
    maxDistance: z.number().int().min(0).max(PDQ_MAX_DISTANCE).optional(),
  }),
  IMAGE_HASH_DISTANCE: z.strictObject({ bankIds: z.array(idSchema).optional() }),
  USER_STRIKE_COUNT: z.strictObject({}),
  USER_SCORE: z.strictObject({}),
  GEO_WITHIN: z.strictObject({ lat: latitude, lon: longitude, radiusKm: z.number().positive() }),
  CREATOR_SUBMISSION_COUNT: z.strictObject({ windowSeconds: positiveInt }),
  // At most 30 s: an evaluation holds one of the organization's handlers while it waits (docs/rules.md).
  HTTP_SIGNAL: z.strictObject({ url: httpUrlSchema, timeoutMs: z.number().int().min(100).max(30_000).optional() }),
};

/** What a signal takes, for the problem an unknown argument gets. */
function takes(type: SignalType): string {
  const names = Object.keys(SIGNAL_ARGS[type].shape);
  return names.length === 0 ? `${type} takes no arguments` : `${type} takes ${names.join(', ')}`;
}

const signalSchema = z.strictObject({ type: z.enum(SIGNAL_TYPES), args: jsonObjectSchema.default({}) }).transform((signal, ctx): ConditionSignal => {
  const args = SIGNAL_ARGS[signal.type].safeParse(signal.args, PARSE_PARAMS);
  if (!args.success) {
    const issues = args.error.issues.flatMap((issue): z.core.$ZodIssue[] =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ code: 'custom', path: [...issue.path, key], message: `unknown argument (${takes(signal.type)})`, input: signal.args }))
        : [issue],
    );
    forwardIssues(ctx, issues, ['args']);
    return z.NEVER;
  }
  return signal;
});

const leafSchema = z
  .strictObject({
    input: inputSchema,
    signal: signalSchema.nullable().default(null),
    comparator: z.enum(COMPARATORS),
    value: z.unknown().optional(),
  })
  .transform((leaf): LeafCondition => ({ ...leaf, value: leaf.value }));

export const conditionSetSchema: z.ZodType<ConditionSet> = z.strictObject({
  conjunction: z.enum(CONJUNCTIONS),
  conditions: z.array(z.lazy(() => conditionSchema)).min(1),
});

/** A condition with a `conditions` key is a nested set, anything else a leaf. */
const conditionSchema: z.ZodType<Condition> = z.unknown().transform((raw, ctx): Condition => {
  const nested = isRecord(raw) && 'conditions' in raw;
  const result = (nested ? conditionSetSchema : leafSchema).safeParse(raw, PARSE_PARAMS);
  if (!nested) requireLeafValue(raw, ctx);
  if (!result.success) {
    forwardIssues(ctx, result.error.issues);
    return z.NEVER;
  }
  return result.data;
});

function requireLeafValue(raw: unknown, ctx: z.core.$RefinementCtx): void {
  if (!isRecord(raw) || raw.value !== undefined) return;
  const { comparator } = raw;
  if (!isOneOf(COMPARATORS, comparator) || VALUELESS_COMPARATORS.has(comparator)) return;
  ctx.addIssue({ code: 'custom', path: ['value'], message: `is required with comparator ${comparator}`, input: undefined });
}

export interface ConditionScope {
  /** Field names a `{ field }` input may use; null when they cannot be known (no or unknown item types). */
  fields: { names: ReadonlySet<string>; itemTypeIds: readonly string[] } | null;
  allowsReportInputs: boolean;
}

/** The field names a rule's conditions may use: those of all its item types together. */
export function fieldScope(rule: Record<string, unknown>, ctx: CheckContext): ConditionScope['fields'] {
  const itemTypeIds = listAt(rule, 'itemTypeIds');
  if (itemTypeIds.length === 0 || !itemTypeIds.every(isId)) return null;
  const names = new Set<string>();
  for (const id of itemTypeIds) {
    const fields = ctx.fieldsByItemType.get(id);
    if (fields === undefined) return null;
    for (const field of fields) names.add(field.name);
  }
  return { names, itemTypeIds };
}

export function checkConditionSet(set: unknown, path: Path, scope: ConditionScope, ctx: CheckContext): void {
  listAt(set, 'conditions').forEach((condition, i) => {
    if (!isRecord(condition)) return;
    const conditionPath = [...path, 'conditions', i];
    if ('conditions' in condition) checkConditionSet(condition, conditionPath, scope, ctx);
    else checkLeaf(condition, conditionPath, scope, ctx);
  });
}

function checkLeaf(leaf: Record<string, unknown>, path: Path, scope: ConditionScope, ctx: CheckContext): void {
  const field = stringAt(leaf.input, 'field');
  const builtin = stringAt(leaf.input, 'builtin');
  if (field !== undefined && field !== '' && scope.fields !== null && !scope.fields.names.has(field)) {
    const types = scope.fields.itemTypeIds.join(', ');
    const noun = scope.fields.itemTypeIds.length === 1 ? 'item type' : 'any of the item types';
    ctx.problems.add([...path, 'input', 'field'], `no field "${field}" in ${noun} ${types}`);
  }
  if (builtin !== undefined && !scope.allowsReportInputs && REPORT_INPUTS.has(builtin)) {
    ctx.problems.add([...path, 'input', 'builtin'], `${builtin} is only available in routing rules`);
  }
  if (isRecord(leaf.signal)) checkSignalReferences(leaf.signal, [...path, 'signal'], ctx);
  checkOrderedValue(leaf, path, scope, ctx);
}

const ORDERING_COMPARATORS: ReadonlySet<string> = new Set(['LT', 'LTE', 'GT', 'GTE']);

/** What an ordering comparator can order: numbers, or texts naming instants (dates and datetimes). */
type Ordered = 'number' | 'instant';

/** What a leaf compares, and which of it an ordering comparator can order ([] for none). */
interface Compared {
  subject: string;
  ordered: readonly Ordered[];
}

const NUMBER_SIGNALS: ReadonlySet<string> = new Set(['IMAGE_HASH_DISTANCE', 'USER_STRIKE_COUNT', 'USER_SCORE', 'CREATOR_SUBMISSION_COUNT', 'HTTP_SIGNAL']);

/**
 * What a field of each type can be ordered as, given what item validation lets it hold: a text
 * may name a date; a URL, a geohash, a boolean or a related item is never a number or an instant.
 */
const ORDERED_FIELD: Record<FieldType, readonly Ordered[]> = {
  NUMBER: ['number'],
  DATETIME: ['instant'],
  STRING: ['instant'],
  BOOLEAN: [],
  IMAGE: [],
  AUDIO: [],
  VIDEO: [],
  GEOHASH: [],
  URL: [],
  RELATED_ITEM: [],
};

/** What each built-in input resolves to; ANY_IMAGE is left out (an undeclared `images` is not typed here). */
const ORDERED_BUILTIN: Readonly<Record<string, readonly Ordered[]>> = {
  ALL_TEXT: ['instant'],
  REPORT_REASON: ['instant'],
  REPORTED_POLICY: ['instant'],
  REPORT_COUNT: ['number'],
  CREATOR: [],
  ITEM: [],
};

/**
 * LT, LTE, GT and GTE order numbers, or dates and datetimes as instants (docs/rules.md, "The
 * condition model"); any other value, or a value of the other kind than what the leaf compares,
 * makes a leaf that silently never passes, so `apply` refuses it at the value.
 */
function checkOrderedValue(leaf: Record<string, unknown>, path: Path, scope: ConditionScope, ctx: CheckContext): void {
  const { comparator, value } = leaf;
  if (typeof comparator !== 'string' || !ORDERING_COMPARATORS.has(comparator) || value === undefined) return;
  const kind = orderedKind(value);
  const compared = comparedByLeaf(leaf, scope, ctx);
  const got = `(got ${JSON.stringify(value)})`;
  if (compared === undefined) {
    if (kind === undefined) ctx.problems.add([...path, 'value'], `${comparator} compares numbers, dates and datetimes ${got}`);
    return;
  }
  if (compared.ordered.length === 0) {
    ctx.problems.add([...path, 'value'], `${comparator} cannot order ${compared.subject}: only numbers, dates and datetimes are ordered`);
  } else if (kind === undefined || !compared.ordered.includes(kind)) {
    const wanted = compared.ordered.map((k) => (k === 'number' ? 'a number' : 'a date or datetime')).join(' or ');
    ctx.problems.add([...path, 'value'], `${comparator} on ${compared.subject} needs ${wanted} ${got}`);
  }
}

/** As the rules engine's comparators read a configured value (libs/rules/src/domain/comparators.ts). */
function orderedKind(value: unknown): Ordered | undefined {
  if (typeof value === 'number') return Number.isNaN(value) ? undefined : 'number';
  if (typeof value === 'string' && value.length >= 10 && parseIsoDateTime(value) !== undefined) return 'instant';
  return undefined;
}

/** undefined when it cannot be known here: an unknown signal or field, or item types not all declared. */
function comparedByLeaf(leaf: Record<string, unknown>, scope: ConditionScope, ctx: CheckContext): Compared | undefined {
  if (isRecord(leaf.signal)) {
    const type = leaf.signal.type;
    if (!isOneOf(SIGNAL_TYPES, type)) return undefined;
    return NUMBER_SIGNALS.has(type)
      ? { subject: `signal ${type} (a number)`, ordered: ['number'] }
      : { subject: `signal ${type} (true or false)`, ordered: [] };
  }
  const builtin = stringAt(leaf.input, 'builtin');
  if (builtin !== undefined) {
    const ordered = ORDERED_BUILTIN[builtin];
    return ordered === undefined ? undefined : { subject: builtin, ordered };
  }
  const field = stringAt(leaf.input, 'field');
  if (field === undefined || scope.fields === null) return undefined;
  // A field declared with other types by the rule's other item types: ordered as any of them.
  const types = new Set<FieldType>();
  for (const id of scope.fields.itemTypeIds) {
    for (const declared of ctx.fieldsByItemType.get(id) ?? []) {
      if (declared.name !== field) continue;
      if (!isOneOf(FIELD_TYPES, declared.type)) return undefined;
      types.add(declared.type);
    }
  }
  if (types.size === 0) return undefined;
  const ordered = [...new Set([...types].flatMap((type) => ORDERED_FIELD[type]))];
  return { subject: `field "${field}" (${[...types].join(' or ')})`, ordered };
}

function checkSignalReferences(signal: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  const args = isRecord(signal.args) ? signal.args : {};
  const argsPath = [...path, 'args'];
  if (signal.type === 'TEXT_BANK') checkReference(args, 'bankId', ctx.declared.textBanks, argsPath, 'text bank', ctx);
  if (signal.type === 'IMAGE_HASH_MATCH' || signal.type === 'IMAGE_HASH_DISTANCE') {
    checkReferenceList(args, 'bankIds', ctx.declared.hashBanks, argsPath, 'hash bank', ctx);
  }
}
