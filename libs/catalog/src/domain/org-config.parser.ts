import * as z from 'zod';
import { CHILD_SAFETY_QUEUE_ID, type OrgConfig } from './catalog.model.js';
import { actionSchema, BUILTIN_ACTIONS, checkActions } from './org-config/actions.section-parser.js';
import { appealsSchema } from './org-config/appeals.section-parser.js';
import { type ConfigProblem, formatPath, isRecord, ProblemList, problemCount } from './org-config/config-problems.js';
import type { CheckContext, DeclaredIds, RawField } from './org-config/cross-references.checker.js';
import { type DocumentFormat, parseSyntax } from './org-config/document-syntax.parser.js';
import { type EnvValues, substituteEnv } from './org-config/env-substitution.js';
import { hashBankSchema, type ReadHashesFile, type ResolvedHashes, resolveHashBanks } from './org-config/hash-banks.section-parser.js';
import { inboundTopicSchema } from './org-config/inbound-topic.section-parser.js';
import { partialItemsSchema } from './org-config/partial-items.section-parser.js';
import { checkDsaReferences, transparencyOrDefault, transparencySchema } from './org-config/dsa-mapping.section-parser.js';
import { checkItemTypes, fieldsOf, itemTypeSchema } from './org-config/item-types.section-parser.js';
import { managementSchema } from './org-config/management.section-parser.js';
import { orgSchema } from './org-config/org.section-parser.js';
import { checkPolicies, policySchema } from './org-config/policies.section-parser.js';
import { checkQueues, queueSchema } from './org-config/queues.section-parser.js';
import { entriesOf } from './org-config/raw-document.reader.js';
import { checkRoutingRules, routingRuleSchema } from './org-config/routing-rules.section-parser.js';
import { checkRules, ruleSchema } from './org-config/rules.section-parser.js';
import { scoresSchema } from './org-config/scores.section-parser.js';
import { addIssues, PARSE_PARAMS } from './org-config/schema-issues.js';
import { checkSso, ssoSchema } from './org-config/sso.section-parser.js';
import { checkStrikes, strikesSchema } from './org-config/strikes.section-parser.js';
import { textBankSchema } from './org-config/text-banks.section-parser.js';
import { checkUsers, userSchema } from './org-config/users.section-parser.js';

// Each section of the file format has its own parser under org-config/; this file composes them.

export { type ConfigProblem, problemCount };

export interface ParseOptions {
  format: DocumentFormat;
  /** Values for `${NAME}` references in string values. */
  env: EnvValues;
  /** Reads a file relative to the configuration file; throws when it cannot. */
  readHashesFile: ReadHashesFile;
}

export type ParseResult = { ok: true; config: OrgConfig } | { ok: false; problems: ConfigProblem[] };

/**
 * Parses and validates an organization configuration file (docs/configuration-as-code.md, "The file") into the normalized
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

// ---------- the shape of every section ----------

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
  scores: sectionSchema(scoresSchema),
  inboundTopic: sectionSchema(inboundTopicSchema),
  partialItems: partialItemsSchema,
  transparency: sectionSchema(transparencySchema.optional()),
  users: listSectionSchema(userSchema),
  sso: sectionSchema(ssoSchema),
  management: sectionSchema(managementSchema),
});
type ParsedFile = z.output<typeof fileSchema>;

const SECTION_NAMES: ReadonlySet<string> = new Set(Object.keys(fileSchema.shape));

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

// ---------- what one section says about another ----------

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

function rawIds(doc: Record<string, unknown>, section: (typeof ID_SECTIONS)[number]): string[] {
  return entriesOf(doc, section).flatMap(({ raw }) => (typeof raw.id === 'string' ? [raw.id] : []));
}

function declaredIds(doc: Record<string, unknown>): DeclaredIds {
  return {
    itemTypes: new Set(rawIds(doc, 'itemTypes')),
    policies: new Set(rawIds(doc, 'policies')),
    actions: new Set([...rawIds(doc, 'actions'), ...BUILTIN_ACTIONS]),
    textBanks: new Set(rawIds(doc, 'textBanks')),
    hashBanks: new Set(rawIds(doc, 'hashBanks')),
    queues: new Set([...rawIds(doc, 'queues'), CHILD_SAFETY_QUEUE_ID]),
  };
}

function checkCrossReferences(doc: Record<string, unknown>, problems: ProblemList): void {
  const fieldsByItemType = new Map<string, RawField[]>();
  for (const { raw } of entriesOf(doc, 'itemTypes')) {
    if (typeof raw.id === 'string' && !fieldsByItemType.has(raw.id)) fieldsByItemType.set(raw.id, fieldsOf(raw));
  }
  const ctx: CheckContext = { problems, declared: declaredIds(doc), fieldsByItemType };

  checkItemTypes(doc, ctx);
  checkPolicies(doc, ctx);
  checkActions(doc, ctx);
  checkRules(doc, ctx);
  checkQueues(doc, ctx);
  checkRoutingRules(doc, 'routingRules', ctx);
  checkRoutingRules(doc, 'appealRoutingRules', ctx);
  checkStrikes(doc, ctx);
  checkUsers(doc, ctx);
  checkSso(doc, ctx);
  checkDsaReferences(doc, ctx);
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
    scores: file.scores,
    inboundTopic: file.inboundTopic,
    partialItems: file.partialItems,
    transparency: transparencyOrDefault(file.transparency),
    users: file.users,
    sso: file.sso,
    management: file.management,
  };
}
