import { RE2JS } from 're2js';
import { parseDocument } from 'yaml';
import * as z from 'zod';
import {
  ACTION_KINDS,
  type ActionDefinition,
  type AppealSettings,
  BUILTIN_ACTION_IDS,
  BUILTIN_INPUTS,
  type BuiltinInput,
  CHILD_SAFETY_QUEUE_ID,
  COMPARATORS,
  type ConditionInput,
  type ConditionSet,
  type ConditionSignal,
  CONJUNCTIONS,
  type DashboardUser,
  FIELD_TYPES,
  type HashBankDefinition,
  HASH_TYPES,
  type HashType,
  ITEM_KINDS,
  type ItemTypeDefinition,
  type LeafCondition,
  type OrgConfig,
  PENALTIES,
  type PolicyDefinition,
  type QueueDefinition,
  ROLES,
  type RoutingRuleDefinition,
  type RuleDefinition,
  RULE_STATUSES,
  SIGNAL_TYPES,
  type SignalType,
  type SsoSettings,
  type StrikeSettings,
  type TextBankDefinition,
} from './catalog.model.js';

// ---------- public API ----------

/** `path` looks like `rules[2].conditionSet.conditions[1].comparator`; '' is the whole file. */
export interface ConfigProblem {
  path: string;
  message: string;
}

export interface ParseOptions {
  format: 'yaml' | 'json';
  /** Values for `${NAME}` references in string values. */
  env: Readonly<Record<string, string | undefined>>;
  /** Reads a file relative to the configuration file; throws when it cannot. */
  readHashesFile: (relativePath: string) => string;
}

export type ParseResult = { ok: true; config: OrgConfig } | { ok: false; problems: ConfigProblem[] };

/**
 * Parses and validates an organization configuration file (org-config.md) into the normalized
 * model, defaults applied. Every problem found is reported, in document order.
 */
export function parseOrgConfig(text: string, options: ParseOptions): ParseResult {
  const syntax = parseSyntax(text, options.format);
  if (!syntax.ok) return { ok: false, problems: [{ path: '', message: syntax.message }] };

  const problems = new ProblemList();
  const doc = substituteEnv(syntax.value, options.env, [], problems);
  if (!isRecord(doc)) {
    const message = 'the configuration must be a mapping of sections (org, itemTypes, …)';
    return { ok: false, problems: [{ path: '', message }] };
  }

  checkSectionNames(doc, problems);
  const parsed = parseShape(doc, problems);
  checkDuplicateIds(doc, problems);
  checkCrossReferences(doc, problems);
  const hashes = resolveHashBanks(doc, options.readHashesFile, problems);

  if (!problems.isEmpty || parsed === undefined) return { ok: false, problems: problems.inDocumentOrder(doc) };
  return { ok: true, config: assemble(parsed, hashes) };
}

// ---------- paths and problems ----------

type PathSegment = string | number;
type Path = readonly PathSegment[];

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function formatPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

class ProblemList {
  private readonly items: Array<{ path: Path; message: string }> = [];
  private readonly silenced = new Set<string>();

  get isEmpty(): boolean {
    return this.items.length === 0;
  }

  add(path: Path, message: string): void {
    if (!this.silenced.has(formatPath(path))) this.items.push({ path, message });
  }

  /** Further problems at `path` would only restate this one (an unset variable also makes a URL invalid). */
  silence(path: Path): void {
    this.silenced.add(formatPath(path));
  }

  /** Problems whose path is not in the document (a missing key) sort with their nearest existing ancestor. */
  inDocumentOrder(doc: unknown): ConfigProblem[] {
    const positions = documentPositions(doc);
    const positionOf = (path: Path): number => {
      for (let length = path.length; length >= 0; length--) {
        const position = positions.get(formatPath(path.slice(0, length)));
        if (position !== undefined) return position;
      }
      return 0;
    };
    return this.items
      .map((problem) => ({ problem, position: positionOf(problem.path) }))
      .sort((a, b) => a.position - b.position)
      .map(({ problem }) => ({ path: formatPath(problem.path), message: problem.message }));
  }
}

/** Pre-order index of every path in the parsed document, which follows the order of the text. */
function documentPositions(doc: unknown): Map<string, number> {
  const positions = new Map<string, number>();
  const visit = (value: unknown, path: PathSegment[]): void => {
    positions.set(formatPath(path), positions.size);
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...path, i]));
    else if (isRecord(value)) for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
  };
  visit(doc, []);
  return positions;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(truncate(value));
  return String(value);
}

function truncate(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

// ---------- syntax ----------

type SyntaxResult = { ok: true; value: unknown } | { ok: false; message: string };

function parseSyntax(text: string, format: ParseOptions['format']): SyntaxResult {
  return format === 'json' ? parseJson(text) : parseYaml(text);
}

function parseJson(text: string): SyntaxResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `invalid JSON: ${withJsonLine(errorMessage(error), text)}` };
  }
}

/** V8 reports a character offset; a line number is what an author can act on. */
function withJsonLine(message: string, text: string): string {
  const offset = /at position (\d+)/.exec(message);
  if (offset === null || /\bline\b/.test(message)) return message;
  const before = text.slice(0, Number(offset[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${message} (line ${line} column ${column})`;
}

function parseYaml(text: string): SyntaxResult {
  const document = parseDocument(text);
  const [error] = document.errors;
  // The yaml message's first line carries the position; the rest is a source excerpt.
  if (error !== undefined) return { ok: false, message: `invalid YAML: ${error.message.split('\n')[0]!.replace(/:$/, '')}` };
  try {
    return { ok: true, value: document.toJS() };
  } catch (toJsError) {
    return { ok: false, message: `invalid YAML: ${errorMessage(toJsError)}` };
  }
}

// ---------- environment variables ----------

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function substituteEnv(value: unknown, env: ParseOptions['env'], path: PathSegment[], problems: ProblemList): unknown {
  if (typeof value === 'string') return substituteInString(value, env, path, problems);
  if (Array.isArray(value)) return value.map((item, i) => substituteEnv(item, env, [...path, i], problems));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substituteEnv(item, env, [...path, key], problems)]),
    );
  }
  return value;
}

function substituteInString(text: string, env: ParseOptions['env'], path: Path, problems: ProblemList): string {
  let missing = false;
  const result = text.replace(ENV_REFERENCE, (reference, name: string) => {
    const replacement = env[name];
    if (replacement !== undefined) return replacement;
    problems.add(path, `environment variable ${name} is not set`);
    missing = true;
    return reference;
  });
  if (missing) problems.silence(path);
  return result;
}

// ---------- zod issues → problems ----------

const PARSE_PARAMS = { reportInput: true } as const;

function addIssues(issues: readonly z.core.$ZodIssue[], prefix: Path, problems: ProblemList): void {
  for (const issue of issues) {
    const path = [...prefix, ...(issue.path as PathSegment[])];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.add([...path, key], 'unknown key');
    } else {
      problems.add(path, describeIssue(issue));
    }
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${EXPECTED_TYPES[issue.expected] ?? issue.expected} (got ${describeValue(issue.input)})`;
    case 'invalid_value':
      if (issue.input === undefined) return `is required (one of ${issue.values.join(', ')})`;
      return `must be one of ${issue.values.join(', ')} (got ${describeValue(issue.input)})`;
    case 'too_small':
      return describeBound(issue.origin, 'min', Number(issue.minimum), issue.inclusive ?? true);
    case 'too_big':
      return describeBound(issue.origin, 'max', Number(issue.maximum), issue.inclusive ?? true);
    case 'invalid_union':
      return issue.input === undefined ? 'is required' : issue.message;
    default:
      return issue.message;
  }
}

const EXPECTED_TYPES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
  date: 'a date',
};

function describeBound(origin: string, side: 'min' | 'max', bound: number, inclusive: boolean): string {
  if (origin === 'array' || origin === 'string') {
    const unit = origin === 'array' ? 'items' : 'characters';
    if (side === 'min' && bound === 1) return 'must not be empty';
    return side === 'min' ? `must have at least ${bound} ${unit}` : `must have at most ${bound} ${unit}`;
  }
  if (side === 'min') return inclusive ? `must be at least ${bound}` : `must be greater than ${bound}`;
  return inclusive ? `must be at most ${bound}` : `must be less than ${bound}`;
}

/** Hands a nested parse's issues to the enclosing schema, which prefixes its own path. */
function forwardIssues(ctx: z.core.$RefinementCtx, issues: readonly z.core.$ZodIssue[], prefix: PathSegment[] = []): void {
  for (const issue of issues) {
    // zod types each issue's input narrowly (a string for format issues); these came from a real parse.
    ctx.issues.push({ ...issue, path: [...prefix, ...issue.path], input: issue.input } as z.core.$ZodRawIssue);
  }
}

// ---------- shared schemas ----------

const idSchema = z.string().regex(/^\S+$/, 'must be a non-empty string without whitespace');
const nameSchema = z.string().regex(/\S/, 'must not be blank');
const nullableText = z.string().nullable().default(null);
const flag = z.boolean().default(false);
const idList = z.array(idSchema).default([]);
const penaltySchema = z.enum(PENALTIES).default('NONE');
const positiveInt = z.number().int().positive();
const jsonObjectSchema = z.record(z.string(), z.unknown());
const httpUrlSchema = z.string().refine(isHttpUrl, 'must be an absolute http(s) URL');
const regexSchema = z.string().superRefine((pattern, ctx) => {
  const error = re2SyntaxError(pattern);
  if (error !== null) ctx.addIssue({ code: 'custom', message: `invalid regular expression: ${error}`, input: pattern });
});

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** Patterns run on re2js at evaluation time, so only what RE2 accepts is valid. */
function re2SyntaxError(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}

const callbackSchema = z.strictObject({
  url: httpUrlSchema,
  headers: z.record(z.string(), z.string()).default({}),
});

// ---------- org and catalog schemas ----------

const ORG_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

const orgSchema = z.strictObject({
  id: z.string().regex(ORG_ID, 'must match ^[a-z0-9][a-z0-9_-]{0,62}$ (lower-case letters, digits, - and _)'),
  name: nameSchema,
  settings: z
    .strictObject({ requireDecisionReason: flag, requirePolicyForDecisions: flag })
    .prefault({}),
});

const fieldSchema = z.strictObject({
  name: z.string().min(1),
  type: z.enum(FIELD_TYPES),
  required: flag,
  array: flag,
  itemTypeIds: idList,
});

const itemTypeSchema: z.ZodType<ItemTypeDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  kind: z.enum(ITEM_KINDS),
  // `version: 1` in YAML is a number; it names a version all the same.
  version: z
    .union([z.string(), z.number().transform(String)], { error: 'must be a string' })
    .nullable()
    .default(null),
  fields: z.array(fieldSchema).default([]),
  roles: z.record(z.string(), z.string()).default({}),
});

const policySchema: z.ZodType<PolicyDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  parentId: idSchema.nullable().default(null),
  policyText: nullableText,
  enforcementGuidelines: nullableText,
  policyType: nullableText,
  penalty: penaltySchema,
  userStrikeCount: z.number().int().min(0).default(0),
  applyUserStrikeCountConfigToChildren: flag,
});

const actionSchema: z.ZodType<ActionDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  description: nullableText,
  kind: z.enum(ACTION_KINDS),
  itemTypeIds: idList,
  applyUserStrikes: flag,
  penalty: penaltySchema,
  callback: callbackSchema.nullable().default(null),
  body: jsonObjectSchema.default({}),
  parameters: z
    .array(z.strictObject({ name: z.string().min(1), type: z.enum(FIELD_TYPES), required: flag }))
    .default([]),
});

const textBankSchema: z.ZodType<TextBankDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  terms: z.array(z.string().min(1)).default([]),
  regexes: z.array(regexSchema).default([]),
});

const PDQ_MAX_DISTANCE = 256;
const PDQ_DEFAULT_MAX_DISTANCE = 31;

/** Hashes stay raw here: a bank may hold a million of them, checked by a plain loop later. */
const hashBankSchema = z.strictObject({
  id: idSchema,
  name: nameSchema,
  hashType: z.enum(HASH_TYPES),
  maxDistance: z.number().int().min(0).max(PDQ_MAX_DISTANCE).nullable().optional(),
  hashes: z.array(z.string()).default([]),
  hashesFile: z.string().min(1).optional(),
});

// ---------- condition schemas ----------

type Condition = LeafCondition | ConditionSet;

const VALUELESS_COMPARATORS: ReadonlySet<string> = new Set(['IS_UNAVAILABLE', 'IS_NOT_PROVIDED']);
const ROUTING_ONLY_INPUTS: ReadonlySet<string> = new Set<BuiltinInput>(['REPORT_REASON', 'REPORTED_POLICY', 'REPORT_COUNT']);

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

/** Arguments each signal needs; references to banks are checked later, against the whole file. */
const SIGNAL_ARGS: Record<SignalType, z.ZodType> = {
  TEXT_CONTAINS: z.looseObject({
    terms: z.array(z.string().min(1)).min(1),
    caseSensitive: z.boolean().optional(),
    wholeWord: z.boolean().optional(),
  }),
  TEXT_MATCHES_REGEX: z.looseObject({ pattern: regexSchema }),
  TEXT_BANK: z.looseObject({ bankId: idSchema }),
  IMAGE_HASH_MATCH: z.looseObject({
    bankIds: z.array(idSchema).optional(),
    maxDistance: z.number().int().min(0).max(PDQ_MAX_DISTANCE).optional(),
  }),
  IMAGE_HASH_DISTANCE: z.looseObject({ bankIds: z.array(idSchema).optional() }),
  USER_STRIKE_COUNT: z.looseObject({}),
  USER_SCORE: z.looseObject({}),
  GEO_WITHIN: z.looseObject({ lat: latitude, lon: longitude, radiusKm: z.number().positive() }),
  CREATOR_SUBMISSION_COUNT: z.looseObject({ windowSeconds: positiveInt }),
  HTTP_SIGNAL: z.looseObject({ url: httpUrlSchema, timeoutMs: positiveInt.optional() }),
};

const signalSchema = z
  .strictObject({ type: z.enum(SIGNAL_TYPES), args: jsonObjectSchema.default({}) })
  .transform((signal, ctx): ConditionSignal => {
    const args = SIGNAL_ARGS[signal.type].safeParse(signal.args, PARSE_PARAMS);
    if (!args.success) {
      forwardIssues(ctx, args.error.issues, ['args']);
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

const conditionSetSchema: z.ZodType<ConditionSet> = z.strictObject({
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

// ---------- rule, queue and settings schemas ----------

const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?[ \t]*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** A timestamp without an offset is taken as UTC, so the file means the same on every server. */
function normalizeDatetime(value: string | Date): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  const match = ISO_DATETIME.exec(value.trim());
  if (match === null) return null;
  const [, year, month, day, hour, minute, second = '00', fraction = '', zone = 'Z'] = match;
  if (!isCalendarDate(Number(year), Number(month), Number(day))) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : normalizeOffset(zone);
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${fraction}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function normalizeOffset(zone: string): string {
  const digits = zone.slice(1).replace(':', '');
  return `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2) || '00'}`;
}

const datetimeSchema = z
  .union([z.string(), z.date()], { error: 'must be an ISO 8601 datetime' })
  .transform((value, ctx) => {
    const iso = normalizeDatetime(value);
    if (iso !== null) return iso;
    const message = 'must be an ISO 8601 datetime with a time part, e.g. 2027-06-30T00:00:00Z';
    ctx.addIssue({ code: 'custom', message, input: value });
    return z.NEVER;
  });

const ruleSchema: z.ZodType<RuleDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  status: z.enum(RULE_STATUSES).default('DRAFT'),
  itemTypeIds: idList,
  tags: z.array(z.string()).default([]),
  maxDailyActions: positiveInt.nullable().default(null),
  expiresAt: datetimeSchema.nullable().default(null),
  actionIds: idList,
  policyIds: idList,
  conditionSet: conditionSetSchema,
});

const queueSchema: z.ZodType<QueueDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  isDefault: flag,
  isAppealsDefault: flag,
  lockTimeoutSeconds: positiveInt.default(600),
});

const routingRuleSchema: z.ZodType<RoutingRuleDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  queueId: idSchema,
  itemTypeIds: idList,
  conditionSet: conditionSetSchema,
});

const strikesSchema: z.ZodType<StrikeSettings> = z
  .strictObject({
    windowDays: positiveInt.nullable().default(null),
    thresholds: z.array(z.strictObject({ strikes: positiveInt, actionId: idSchema })).default([]),
  })
  .prefault({});

const appealsSchema: z.ZodType<AppealSettings> = z
  .strictObject({ callback: callbackSchema.nullable().default(null), body: jsonObjectSchema.default({}) })
  .prefault({});

const userSchema: z.ZodType<DashboardUser> = z.strictObject({
  email: z.string().regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address'),
  roles: z.array(z.enum(ROLES)).default([]),
});

const ssoSchema: z.ZodType<SsoSettings> = z
  .strictObject({
    saml_enabled: flag,
    sso_url: httpUrlSchema.nullable().default(null),
    cert: z.string().nullable().default(null),
  })
  .prefault({});

// ---------- the whole file ----------

/** A section left empty in YAML (`policies:`) is null; it means the same as leaving it out. */
const nullAsMissing = (value: unknown): unknown => (value === null ? undefined : value);
const sectionSchema = <T extends z.ZodType>(schema: T) => z.preprocess(nullAsMissing, schema);
const listSectionSchema = <T>(schema: z.ZodType<T>) => sectionSchema(z.array(schema).default([]));

/** Unknown sections pass here and are reported by `checkSectionNames`, with a clearer message. */
const fileSchema = z.looseObject({
  org: sectionSchema(orgSchema),
  itemTypes: listSectionSchema(itemTypeSchema),
  policies: listSectionSchema(policySchema),
  actions: listSectionSchema(actionSchema),
  textBanks: listSectionSchema(textBankSchema),
  hashBanks: listSectionSchema(hashBankSchema),
  rules: listSectionSchema(ruleSchema),
  queues: listSectionSchema(queueSchema),
  routingRules: listSectionSchema(routingRuleSchema),
  appealRoutingRules: listSectionSchema(routingRuleSchema),
  strikes: sectionSchema(strikesSchema),
  appeals: sectionSchema(appealsSchema),
  users: listSectionSchema(userSchema),
  sso: sectionSchema(ssoSchema),
});
type ParsedFile = z.output<typeof fileSchema>;

const SECTION_NAMES: ReadonlySet<string> = new Set(Object.keys(fileSchema.shape));

/** Sections whose entries carry an `id` unique within the section. */
const ID_SECTIONS = [
  'itemTypes',
  'policies',
  'actions',
  'textBanks',
  'hashBanks',
  'rules',
  'queues',
  'routingRules',
  'appealRoutingRules',
] as const satisfies ReadonlyArray<keyof ParsedFile>;

function checkSectionNames(doc: Record<string, unknown>, problems: ProblemList): void {
  for (const key of Object.keys(doc)) {
    if (!SECTION_NAMES.has(key)) problems.add([key], `unknown section "${key}"`);
  }
}

function parseShape(doc: Record<string, unknown>, problems: ProblemList): ParsedFile | undefined {
  const result = fileSchema.safeParse(doc, PARSE_PARAMS);
  if (result.success) return result.data;
  addIssues(result.error.issues, [], problems);
  return undefined;
}

// ---------- reading the raw document ----------
// Cross-references and hashes are checked on the document as written, not on the parsed entries,
// so that an entry with a shape problem still has its references checked: every problem is reported.

type RawEntry = { index: number; raw: Record<string, unknown> };

function listAt(raw: unknown, key: string): unknown[] {
  const value = isRecord(raw) ? raw[key] : undefined;
  return Array.isArray(value) ? value : [];
}

function entriesOf(doc: Record<string, unknown>, section: string): RawEntry[] {
  return listAt(doc, section).flatMap((raw, index) => (isRecord(raw) ? [{ index, raw }] : []));
}

function stringAt(raw: unknown, key: string): string | undefined {
  const value = isRecord(raw) ? raw[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Values that are not ids at all already have a shape problem; only well-formed ids are looked up. */
function isId(value: unknown): value is string {
  return typeof value === 'string' && /^\S+$/.test(value);
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return (values as readonly unknown[]).includes(value);
}

// ---------- cross-references ----------

type IdSection = (typeof ID_SECTIONS)[number];

/** Ids as written, valid entries or not, so that one broken entry does not make every reference to it fail too. */
type DeclaredIds = Record<IdSection, ReadonlySet<string>>;

function rawIds(doc: Record<string, unknown>, section: string): string[] {
  return entriesOf(doc, section).flatMap(({ raw }) => (typeof raw.id === 'string' ? [raw.id] : []));
}

function declaredIds(doc: Record<string, unknown>): DeclaredIds {
  const ids = (section: IdSection) => new Set(rawIds(doc, section));
  return {
    itemTypes: ids('itemTypes'),
    policies: ids('policies'),
    actions: new Set([...rawIds(doc, 'actions'), ...BUILTIN_ACTIONS]),
    textBanks: ids('textBanks'),
    hashBanks: ids('hashBanks'),
    rules: ids('rules'),
    queues: new Set([...rawIds(doc, 'queues'), CHILD_SAFETY_QUEUE_ID]),
    routingRules: ids('routingRules'),
    appealRoutingRules: ids('appealRoutingRules'),
  };
}

function checkDuplicateIds(doc: Record<string, unknown>, problems: ProblemList): void {
  for (const section of ID_SECTIONS) {
    const firstIndex = new Map<string, number>();
    for (const { index, raw } of entriesOf(doc, section)) {
      if (typeof raw.id !== 'string') continue;
      const first = firstIndex.get(raw.id);
      if (first === undefined) firstIndex.set(raw.id, index);
      else problems.add([section, index, 'id'], `duplicate id "${raw.id}" (first declared at ${formatPath([section, first])})`);
    }
  }
}

interface RawField {
  name: string;
  type: unknown;
}

interface CheckContext {
  problems: ProblemList;
  declared: DeclaredIds;
  /** The fields of each item type, by item type id (first declaration wins). */
  fieldsByItemType: ReadonlyMap<string, readonly RawField[]>;
}

function fieldsOf(itemType: Record<string, unknown>): RawField[] {
  return listAt(itemType, 'fields').flatMap((field) =>
    isRecord(field) && typeof field.name === 'string' ? [{ name: field.name, type: field.type }] : [],
  );
}

function checkCrossReferences(doc: Record<string, unknown>, problems: ProblemList): void {
  const fieldsByItemType = new Map<string, RawField[]>();
  for (const { raw } of entriesOf(doc, 'itemTypes')) {
    if (typeof raw.id === 'string' && !fieldsByItemType.has(raw.id)) fieldsByItemType.set(raw.id, fieldsOf(raw));
  }
  const ctx: CheckContext = { problems, declared: declaredIds(doc), fieldsByItemType };

  for (const { index, raw } of entriesOf(doc, 'itemTypes')) checkItemType(raw, ['itemTypes', index], ctx);
  checkPolicyTree(entriesOf(doc, 'policies'), ctx);
  for (const { index, raw } of entriesOf(doc, 'actions')) checkAction(raw, ['actions', index], ctx);
  for (const { index, raw } of entriesOf(doc, 'rules')) checkRule(raw, ['rules', index], ctx);
  checkQueues(entriesOf(doc, 'queues'), problems);
  for (const section of ['routingRules', 'appealRoutingRules'] as const) {
    for (const { index, raw } of entriesOf(doc, section)) checkRoutingRule(raw, [section, index], ctx);
  }
  checkStrikes(doc.strikes, ctx);
  checkUsers(entriesOf(doc, 'users'), problems);
  checkSso(doc.sso, problems);
}

function checkReference(
  raw: Record<string, unknown>,
  key: string,
  known: ReadonlySet<string>,
  path: Path,
  kind: string,
  ctx: CheckContext,
): void {
  const id = raw[key];
  if (isId(id) && !known.has(id)) ctx.problems.add([...path, key], `unknown ${kind} "${id}"`);
}

function checkReferenceList(
  raw: unknown,
  key: string,
  known: ReadonlySet<string>,
  path: Path,
  kind: string,
  ctx: CheckContext,
): void {
  listAt(raw, key).forEach((id, i) => {
    if (isId(id) && !known.has(id)) ctx.problems.add([...path, key, i], `unknown ${kind} "${id}"`);
  });
}

const RELATED_ITEM_ROLES: ReadonlySet<string> = new Set(['creator', 'thread']);

function checkItemType(itemType: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  const seen = new Set<string>();
  listAt(itemType, 'fields').forEach((field, j) => {
    const fieldPath = [...path, 'fields', j];
    const name = stringAt(field, 'name');
    if (name !== undefined && seen.has(name)) ctx.problems.add([...fieldPath, 'name'], `duplicate field name "${name}"`);
    if (name !== undefined) seen.add(name);
    const type = isRecord(field) ? field.type : undefined;
    if (isOneOf(FIELD_TYPES, type) && type !== 'RELATED_ITEM' && listAt(field, 'itemTypeIds').length > 0) {
      ctx.problems.add([...fieldPath, 'itemTypeIds'], 'is only allowed on RELATED_ITEM fields');
    }
    checkReferenceList(field, 'itemTypeIds', ctx.declared.itemTypes, fieldPath, 'item type', ctx);
  });
  checkRoles(itemType, path, ctx);
}

function checkRoles(itemType: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  if (!isRecord(itemType.roles)) return;
  const fields = fieldsOf(itemType);
  for (const [role, fieldName] of Object.entries(itemType.roles)) {
    if (typeof fieldName !== 'string') continue;
    const field = fields.find((candidate) => candidate.name === fieldName);
    const rolePath = [...path, 'roles', role];
    if (field === undefined) {
      ctx.problems.add(rolePath, `item type "${String(itemType.id)}" has no field "${fieldName}"`);
    } else if (RELATED_ITEM_ROLES.has(role) && isOneOf(FIELD_TYPES, field.type) && field.type !== 'RELATED_ITEM') {
      ctx.problems.add(rolePath, `role ${role} must name a RELATED_ITEM field ("${fieldName}" is ${field.type})`);
    }
  }
}

interface PolicyNode {
  index: number;
  id: string;
  parentId: string | undefined;
}

function checkPolicyTree(policies: RawEntry[], ctx: CheckContext): void {
  const nodes: PolicyNode[] = [];
  for (const { index, raw } of policies) {
    checkReference(raw, 'parentId', ctx.declared.policies, ['policies', index], 'policy', ctx);
    if (typeof raw.id === 'string') nodes.push({ index, id: raw.id, parentId: isId(raw.parentId) ? raw.parentId : undefined });
  }

  const byId = new Map<string, PolicyNode>();
  for (const node of nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  const settled = new Set<string>();
  for (const start of nodes) {
    const chain: PolicyNode[] = [];
    const positionInChain = new Map<string, number>();
    let current: PolicyNode | undefined = start;
    while (current !== undefined && !settled.has(current.id)) {
      const cycleStart = positionInChain.get(current.id);
      if (cycleStart !== undefined) {
        reportPolicyCycle(chain.slice(cycleStart), ctx.problems);
        break;
      }
      positionInChain.set(current.id, chain.length);
      chain.push(current);
      current = current.parentId === undefined ? undefined : byId.get(current.parentId);
    }
    for (const node of chain) settled.add(node.id);
  }
}

/** Reported once, at the member written first, with the loop spelled out from there. */
function reportPolicyCycle(cycle: PolicyNode[], problems: ProblemList): void {
  const firstWritten = cycle.reduce((a, b) => (b.index < a.index ? b : a));
  const from = cycle.indexOf(firstWritten);
  const loop = [...cycle.slice(from), ...cycle.slice(0, from), firstWritten].map(({ id }) => id);
  problems.add(['policies', firstWritten.index, 'parentId'], `policy parents form a cycle: ${loop.join(' → ')}`);
}

const BUILTIN_ACTIONS: ReadonlySet<string> = new Set(Object.values(BUILTIN_ACTION_IDS));

function checkAction(action: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  if (typeof action.id === 'string' && BUILTIN_ACTIONS.has(action.id)) {
    ctx.problems.add([...path, 'id'], `"${action.id}" is reserved for a built-in action`);
  }
  checkReferenceList(action, 'itemTypeIds', ctx.declared.itemTypes, path, 'item type', ctx);
  if (!isOneOf(ACTION_KINDS, action.kind)) return;
  const hasCallback = action.callback !== undefined && action.callback !== null;
  if (action.kind === 'CUSTOMER_DEFINED_ACTION' && !hasCallback) {
    ctx.problems.add([...path, 'callback'], 'is required for a CUSTOMER_DEFINED_ACTION (an object with an absolute http(s) url)');
  } else if (action.kind !== 'CUSTOMER_DEFINED_ACTION' && hasCallback) {
    ctx.problems.add([...path, 'callback'], `is only allowed on a CUSTOMER_DEFINED_ACTION, not ${action.kind}`);
  }
}

function checkRule(rule: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  checkReferenceList(rule, 'itemTypeIds', ctx.declared.itemTypes, path, 'item type', ctx);
  checkReferenceList(rule, 'actionIds', ctx.declared.actions, path, 'action', ctx);
  checkReferenceList(rule, 'policyIds', ctx.declared.policies, path, 'policy', ctx);
  const scope: ConditionScope = { fields: fieldScope(rule, ctx), allowsReportInputs: false };
  checkConditionSet(rule.conditionSet, [...path, 'conditionSet'], scope, ctx);
}

function checkRoutingRule(rule: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  checkReference(rule, 'queueId', ctx.declared.queues, path, 'queue', ctx);
  checkReferenceList(rule, 'itemTypeIds', ctx.declared.itemTypes, path, 'item type', ctx);
  const scope: ConditionScope = { fields: fieldScope(rule, ctx), allowsReportInputs: true };
  checkConditionSet(rule.conditionSet, [...path, 'conditionSet'], scope, ctx);
}

interface ConditionScope {
  /** Field names a `{ field }` input may use; null when they cannot be known (no or unknown item types). */
  fields: { names: ReadonlySet<string>; itemTypeIds: readonly string[] } | null;
  allowsReportInputs: boolean;
}

function fieldScope(rule: Record<string, unknown>, ctx: CheckContext): ConditionScope['fields'] {
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

function checkConditionSet(set: unknown, path: Path, scope: ConditionScope, ctx: CheckContext): void {
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
  if (builtin !== undefined && !scope.allowsReportInputs && ROUTING_ONLY_INPUTS.has(builtin)) {
    ctx.problems.add([...path, 'input', 'builtin'], `${builtin} is only available in routing rules`);
  }
  if (isRecord(leaf.signal)) checkSignalReferences(leaf.signal, [...path, 'signal'], ctx);
}

function checkSignalReferences(signal: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  const args = isRecord(signal.args) ? signal.args : {};
  const argsPath = [...path, 'args'];
  if (signal.type === 'TEXT_BANK') checkReference(args, 'bankId', ctx.declared.textBanks, argsPath, 'text bank', ctx);
  if (signal.type === 'IMAGE_HASH_MATCH' || signal.type === 'IMAGE_HASH_DISTANCE') {
    checkReferenceList(args, 'bankIds', ctx.declared.hashBanks, argsPath, 'hash bank', ctx);
  }
}

function checkQueues(queues: RawEntry[], problems: ProblemList): void {
  const firstFlagged: Record<'isDefault' | 'isAppealsDefault', number | undefined> = {
    isDefault: undefined,
    isAppealsDefault: undefined,
  };
  const describe = { isDefault: 'the default', isAppealsDefault: 'the appeals default' };
  for (const { index, raw } of queues) {
    if (raw.id === CHILD_SAFETY_QUEUE_ID) {
      problems.add(['queues', index, 'id'], `"${CHILD_SAFETY_QUEUE_ID}" is reserved for the built-in child-safety queue`);
    }
    for (const flagName of ['isDefault', 'isAppealsDefault'] as const) {
      if (raw[flagName] !== true) continue;
      const first = firstFlagged[flagName];
      if (first === undefined) firstFlagged[flagName] = index;
      else problems.add(['queues', index, flagName], `only one queue may be ${describe[flagName]} (queues[${first}] already is)`);
    }
  }
}

function checkStrikes(strikes: unknown, ctx: CheckContext): void {
  listAt(strikes, 'thresholds').forEach((threshold, i) => {
    if (isRecord(threshold)) {
      checkReference(threshold, 'actionId', ctx.declared.actions, ['strikes', 'thresholds', i], 'action', ctx);
    }
  });
}

function checkUsers(users: RawEntry[], problems: ProblemList): void {
  const seen = new Set<string>();
  for (const { index, raw } of users) {
    if (typeof raw.email !== 'string') continue;
    const email = raw.email.toLowerCase();
    if (seen.has(email)) problems.add(['users', index, 'email'], `duplicate user "${raw.email}"`);
    seen.add(email);
  }
}

function checkSso(sso: unknown, problems: ProblemList): void {
  if (!isRecord(sso) || sso.saml_enabled !== true) return;
  for (const key of ['sso_url', 'cert'] as const) {
    if (sso[key] === undefined || sso[key] === null) problems.add(['sso', key], 'is required when saml_enabled is true');
  }
}

// ---------- hashes ----------

const HASH_HEX_LENGTH: Record<HashType, number> = { PDQ: 64, MD5: 32, SHA256: 64 };
const MAX_REPORTED_BAD_LINES = 20;

interface HashFormat {
  pattern: RegExp;
  description: string;
}

type ResolvedHashes = Pick<HashBankDefinition, 'maxDistance' | 'hashes'>;

/** Resolved hashes by hash bank index; banks with an unknown hashType cannot be checked. */
function resolveHashBanks(
  doc: Record<string, unknown>,
  readHashesFile: ParseOptions['readHashesFile'],
  problems: ProblemList,
): Map<number, ResolvedHashes> {
  const resolved = new Map<number, ResolvedHashes>();
  for (const { index, raw } of entriesOf(doc, 'hashBanks')) {
    if (!isOneOf(HASH_TYPES, raw.hashType)) continue;
    const path = ['hashBanks', index];
    const format = hashFormat(raw.hashType);
    const hashes = new Set<string>();
    listAt(raw, 'hashes').forEach((hash, i) => {
      if (typeof hash !== 'string') return;
      const trimmed = hash.trim();
      if (format.pattern.test(trimmed)) hashes.add(trimmed.toLowerCase());
      else problems.add([...path, 'hashes', i], `${describeValue(hash)} is not a ${format.description}`);
    });
    const file = stringAt(raw, 'hashesFile');
    if (file !== undefined && file !== '') {
      addHashesFromFile(file, format, hashes, [...path, 'hashesFile'], readHashesFile, problems);
    }
    resolved.set(index, { maxDistance: resolveMaxDistance(raw.hashType, raw.maxDistance, path, problems), hashes: [...hashes] });
  }
  return resolved;
}

function hashFormat(hashType: HashType): HashFormat {
  const length = HASH_HEX_LENGTH[hashType];
  return { pattern: new RegExp(`^[0-9a-fA-F]{${length}}$`), description: `${length}-character hex ${hashType} hash` };
}

/** The range of a given value is checked by the schema; here only whether it may be given at all. */
function resolveMaxDistance(hashType: HashType, given: unknown, path: Path, problems: ProblemList): number | null {
  const value = typeof given === 'number' ? given : null;
  if (hashType === 'PDQ') return value ?? PDQ_DEFAULT_MAX_DISTANCE;
  if (given !== undefined && given !== null) problems.add([...path, 'maxDistance'], `applies to PDQ banks only, not ${hashType}`);
  return null;
}

/** A plain loop, not zod: a hashes file may hold a million lines. */
function addHashesFromFile(
  file: string,
  format: HashFormat,
  hashes: Set<string>,
  path: Path,
  readHashesFile: ParseOptions['readHashesFile'],
  problems: ProblemList,
): void {
  let text: string;
  try {
    text = readHashesFile(file);
  } catch (error) {
    problems.add(path, `cannot read hashes file "${file}": ${errorMessage(error)}`);
    return;
  }
  const lines = text.split('\n');
  let malformed = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (format.pattern.test(line)) {
      hashes.add(line.toLowerCase());
      continue;
    }
    malformed++;
    if (malformed <= MAX_REPORTED_BAD_LINES) {
      problems.add(path, `line ${i + 1}: ${describeValue(line)} is not a ${format.description}`);
    }
  }
  if (malformed > MAX_REPORTED_BAD_LINES) {
    problems.add(path, `… and ${malformed - MAX_REPORTED_BAD_LINES} more malformed lines`);
  }
}

// ---------- assembly ----------

/** Only called when no problem was found, so every hash bank has its hashes resolved. */
function assemble(file: ParsedFile, hashes: ReadonlyMap<number, ResolvedHashes>): OrgConfig {
  return {
    org: file.org,
    itemTypes: file.itemTypes,
    policies: file.policies,
    actions: file.actions,
    textBanks: file.textBanks,
    hashBanks: file.hashBanks.map(({ id, name, hashType }, index) => ({
      id,
      name,
      hashType,
      maxDistance: null,
      hashes: [],
      ...hashes.get(index),
    })),
    rules: file.rules,
    queues: file.queues,
    routingRules: file.routingRules,
    appealRoutingRules: file.appealRoutingRules,
    strikes: file.strikes,
    appeals: file.appeals,
    users: file.users,
    sso: file.sso,
  };
}
