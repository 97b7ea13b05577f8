import * as z from 'zod';
import { hasUserInfo } from '#warden/kernel';
import {
  type ActionDsaMapping,
  DEFAULT_TRANSPARENCY_SETTINGS,
  type ItemTypeDsaMapping,
  type PolicyDsaMapping,
  type TransparencySettings,
} from '../catalog.model.js';
import {
  DSA_ACCOUNT_TYPES,
  DSA_CATEGORIES,
  DSA_CONTENT_TYPES,
  DSA_DECISION_ACCOUNTS,
  DSA_DECISION_GROUNDS,
  DSA_DECISION_MONETARIES,
  DSA_DECISION_PROVISIONS,
  DSA_DECISION_VISIBILITIES,
  DSA_EEA_COUNTRIES,
  DSA_EU_COUNTRIES,
  DSA_KEYWORDS,
  DSA_LANGUAGES,
  DSA_LIMITS,
} from '../dsa-vocabulary.js';
import { httpUrlSchema, idList, idSchema, secretStringSchema } from './common-fields.schema.js';
import type { ProblemList } from './config-problems.js';
import { type CheckContext, checkReference, checkReferenceList } from './cross-references.checker.js';
import { entriesOf } from './raw-document.reader.js';

// The DSA mapping of policies, actions and item types, and the `transparency:` section: the
// attributes and rules of the Transparency Database's statement of reasons
// (docs/transparency.md, which cites the Database's API documentation).

const text = (max: number) => z.string().regex(/\S/, 'must not be blank').max(max);
/** A list of distinct enumeration values, at least one. */
const enumList = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .array(z.enum(values))
    .min(1)
    .refine((list) => new Set(list).size === list.length, 'must not repeat a value');

type Ctx = z.core.$RefinementCtx;
const requireWhen = (ctx: Ctx, present: unknown, condition: boolean, key: string, why: string): void => {
  if (condition && present === undefined) ctx.addIssue({ code: 'custom', path: [key], message: `is required ${why}`, input: undefined });
  if (!condition && present !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `is only allowed ${why}`, input: present });
};

/** `policies[].dsa`. */
export const policyDsaSchema: z.ZodType<PolicyDsaMapping> = z
  .strictObject({
    category: z.enum(DSA_CATEGORIES),
    categorySpecification: enumList(DSA_KEYWORDS).optional(),
    categorySpecificationOther: text(DSA_LIMITS.other).optional(),
    decisionGround: z.enum(DSA_DECISION_GROUNDS),
    illegalContentLegalGround: text(DSA_LIMITS.ground).optional(),
    illegalContentExplanation: text(DSA_LIMITS.explanation).optional(),
    incompatibleContentGround: text(DSA_LIMITS.ground).optional(),
    incompatibleContentExplanation: text(DSA_LIMITS.explanation).optional(),
    incompatibleContentIllegal: z.boolean().optional(),
    decisionGroundReferenceUrl: httpUrlSchema.pipe(z.string().max(DSA_LIMITS.url)).optional(),
  })
  .superRefine((m, ctx) => {
    const illegal = m.decisionGround === 'DECISION_GROUND_ILLEGAL_CONTENT';
    const whenIllegal = 'with decisionGround DECISION_GROUND_ILLEGAL_CONTENT';
    const whenIncompatible = 'with decisionGround DECISION_GROUND_INCOMPATIBLE_CONTENT';
    requireWhen(ctx, m.illegalContentLegalGround, illegal, 'illegalContentLegalGround', whenIllegal);
    requireWhen(ctx, m.illegalContentExplanation, illegal, 'illegalContentExplanation', whenIllegal);
    requireWhen(ctx, m.incompatibleContentGround, !illegal, 'incompatibleContentGround', whenIncompatible);
    requireWhen(ctx, m.incompatibleContentExplanation, !illegal, 'incompatibleContentExplanation', whenIncompatible);
    if (illegal && m.incompatibleContentIllegal !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['incompatibleContentIllegal'],
        message: `is only allowed ${whenIncompatible}`,
        input: m.incompatibleContentIllegal,
      });
    }
    if (m.categorySpecificationOther !== undefined && !(m.categorySpecification ?? []).includes('KEYWORD_OTHER')) {
      ctx.addIssue({
        code: 'custom',
        path: ['categorySpecificationOther'],
        message: 'is only allowed with KEYWORD_OTHER in categorySpecification',
        input: m.categorySpecificationOther,
      });
    }
  });

/** `actions[].dsa`: a restriction, or `false` (the action restricts nothing). */
export const actionDsaSchema: z.ZodType<ActionDsaMapping> = z.union(
  [
    z.literal(false),
    z
      .strictObject({
        decisionVisibility: enumList(DSA_DECISION_VISIBILITIES).optional(),
        decisionVisibilityOther: text(DSA_LIMITS.other).optional(),
        decisionMonetary: z.enum(DSA_DECISION_MONETARIES).optional(),
        decisionMonetaryOther: text(DSA_LIMITS.other).optional(),
        decisionProvision: z.enum(DSA_DECISION_PROVISIONS).optional(),
        decisionAccount: z.enum(DSA_DECISION_ACCOUNTS).optional(),
        durationDays: z.number().int().min(1).max(36_500).optional(),
        defaultPolicyId: idSchema.optional(),
      })
      .superRefine((m, ctx) => {
        if (m.decisionVisibility === undefined && m.decisionMonetary === undefined && m.decisionProvision === undefined && m.decisionAccount === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [],
            message:
              'must state at least one restriction (decisionVisibility, decisionMonetary, decisionProvision, decisionAccount), or be false when the action restricts nothing',
            input: m,
          });
        }
        const other = (m.decisionVisibility ?? []).includes('DECISION_VISIBILITY_OTHER');
        requireWhen(ctx, m.decisionVisibilityOther, other, 'decisionVisibilityOther', 'with DECISION_VISIBILITY_OTHER in decisionVisibility');
        requireWhen(
          ctx,
          m.decisionMonetaryOther,
          m.decisionMonetary === 'DECISION_MONETARY_OTHER',
          'decisionMonetaryOther',
          'with decisionMonetary DECISION_MONETARY_OTHER',
        );
      }),
  ],
  {
    error:
      'must be false or a mapping of the restriction (decisionVisibility, decisionMonetary, decisionProvision, decisionAccount, durationDays, defaultPolicyId)',
  },
);

/** `itemTypes[].dsa`. */
export const itemTypeDsaSchema: z.ZodType<ItemTypeDsaMapping> = z
  .strictObject({
    contentType: enumList(DSA_CONTENT_TYPES),
    contentTypeOther: text(DSA_LIMITS.other).optional(),
    contentLanguage: z.enum(DSA_LANGUAGES).optional(),
  })
  .superRefine((m, ctx) => {
    requireWhen(ctx, m.contentTypeOther, m.contentType.includes('CONTENT_TYPE_OTHER'), 'contentTypeOther', 'with CONTENT_TYPE_OTHER in contentType');
  });

/** `EU` and `EEA` stand for their member states' codes, alone or with other codes. */
const SCOPE_GROUPS: Readonly<Record<string, readonly string[]>> = { EU: DSA_EU_COUNTRIES, EEA: DSA_EEA_COUNTRIES };
const scopeSchema = z
  .array(z.enum([...DSA_EEA_COUNTRIES, 'EU', 'EEA'] as [string, ...string[]]))
  .min(1)
  .transform((codes) => {
    const expanded = new Set(codes.flatMap((c) => SCOPE_GROUPS[c] ?? [c]));
    return DSA_EEA_COUNTRIES.filter((c) => expanded.has(c));
  });

/**
 * The Transparency Database's multiple endpoint (`POST /api/v1/statements`, docs/transparency.md,
 * "Submission"); the sandbox's URL for tests of the platform's own.
 */
export const DSA_DATABASE_STATEMENTS_URL = 'https://transparency.dsa.ec.europa.eu/api/v1/statements';

const SUBMISSION_USER_INFO =
  'has user info, which is not sent: the Database takes the token, sent as Authorization: Bearer (remove the user name and password from the URL)';

/**
 * `transparency.submission`: the endpoint and the API token, a secret given as a `${NAME}`
 * reference. The token is sent as `Authorization: Bearer …`, the only credentials the Database
 * takes: user info in the URL, which the outbound client would refuse on every attempt and which
 * could only be sent in place of the token, is refused here (the URL never quoted).
 */
const submissionSchema = z
  .strictObject({
    url: httpUrlSchema.default(DSA_DATABASE_STATEMENTS_URL),
    token: secretStringSchema.pipe(
      z
        .string()
        .min(1)
        .regex(/^[\x21-\x7e]+$/, 'must be the API token (printable characters, no spaces)'),
    ),
  })
  .superRefine(({ url }, ctx) => {
    if (hasUserInfo(url)) ctx.addIssue({ code: 'custom', message: SUBMISSION_USER_INFO, path: ['url'], input: '' });
  });

/** `transparency:`; written, it is on unless it says `enabled: false` (left out: DEFAULT_TRANSPARENCY_SETTINGS). */
export const transparencySchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    territorialScope: scopeSchema.optional(),
    trustedFlaggers: idList,
    accountType: z.enum(DSA_ACCOUNT_TYPES).nullable().default(null),
    submission: submissionSchema.optional(),
  })
  .superRefine((s, ctx) => {
    // Required by the Database's documentation of territorial_scope.
    if (s.enabled && s.territorialScope === undefined) {
      ctx.addIssue({ code: 'custom', path: ['territorialScope'], message: 'is required (EU/EEA country codes, or EU, EEA)', input: undefined });
    }
  })
  .transform((s): TransparencySettings => {
    const { submission, ...rest } = s;
    const settings: TransparencySettings = { ...rest, territorialScope: (s.territorialScope ?? []) as TransparencySettings['territorialScope'] };
    // Left out when not configured, so that a file without it decides the same settings as before.
    if (submission) settings.submission = { url: submission.url, headers: { authorization: `Bearer ${submission.token}` } };
    return settings;
  });

/** The section as the file has it: left out, transparency is off. */
export const transparencyOrDefault = (section: TransparencySettings | undefined): TransparencySettings =>
  section ?? { ...DEFAULT_TRANSPARENCY_SETTINGS, territorialScope: [], trustedFlaggers: [] };

/** References the mapping makes: an action's default policy, the trusted flaggers' reporter types. */
export function checkDsaReferences(doc: Record<string, unknown>, ctx: CheckContext): void {
  for (const { index, raw } of entriesOf(doc, 'actions')) {
    const dsa = raw['dsa'];
    if (typeof dsa === 'object' && dsa !== null)
      checkReference(dsa as Record<string, unknown>, 'defaultPolicyId', ctx.declared.policies, ['actions', index, 'dsa'], 'policy', ctx);
    if (dsa !== undefined && dsa !== null && (raw['kind'] === 'ENQUEUE_TO_MRT' || raw['kind'] === 'ENQUEUE_TO_CHILD_SAFETY')) {
      ctx.problems.add(['actions', index, 'dsa'], `is only allowed on a CUSTOMER_DEFINED_ACTION: sending to review restricts nothing`);
    }
  }
  const section = doc['transparency'];
  if (typeof section === 'object' && section !== null) {
    checkReferenceList(section, 'trustedFlaggers', ctx.declared.itemTypes, ['transparency'], 'item type', ctx);
  }
}

/**
 * What a statement of reasons would lack for decisions of this file: every custom action and
 * policy without a mapping, and item types without a content type. Only with `transparency:`
 * on, so that an organization that does not produce statements hears nothing of them.
 */
export function transparencyWarnings(config: {
  transparency: TransparencySettings;
  actions: ReadonlyArray<{ id: string; kind: string; dsa?: ActionDsaMapping }>;
  policies: ReadonlyArray<{ id: string; dsa?: PolicyDsaMapping }>;
  itemTypes: ReadonlyArray<{ id: string; dsa?: ItemTypeDsaMapping }>;
  rules: ReadonlyArray<{ id: string; actionIds: string[]; policyIds: string[] }>;
  strikes: { thresholds: ReadonlyArray<{ actionId: string }> };
}): string[] {
  if (!config.transparency.enabled) return [];
  const warnings: string[] = [];
  const actions = new Map(config.actions.map((a) => [a.id, a]));
  const policies = new Map(config.policies.map((p) => [p.id, p]));
  for (const action of config.actions) {
    if (action.kind === 'CUSTOMER_DEFINED_ACTION' && action.dsa === undefined) {
      warnings.push(`action ${action.id} has no dsa mapping: decisions taking it get no statement of reasons (map its restriction, or dsa: false)`);
    }
  }
  for (const policy of config.policies) {
    if (policy.dsa === undefined) warnings.push(`policy ${policy.id} has no dsa mapping: statements of decisions under it lack a category and ground`);
  }
  for (const itemType of config.itemTypes) {
    if (itemType.dsa === undefined) warnings.push(`item type ${itemType.id} has no dsa mapping: statements about its items lack a content type`);
  }
  for (const rule of config.rules) {
    const restricting = rule.actionIds.some((id) => {
      const a = actions.get(id);
      return a !== undefined && a.dsa !== false && a.kind === 'CUSTOMER_DEFINED_ACTION';
    });
    if (!restricting) continue;
    const mapped = rule.policyIds.some((id) => policies.get(id)?.dsa !== undefined);
    const fallback = rule.actionIds.some((id) => {
      const a = actions.get(id)?.dsa;
      return typeof a === 'object' && a.defaultPolicyId !== undefined;
    });
    if (!mapped && !fallback) warnings.push(`rule ${rule.id} names no policy with a dsa mapping: its decisions' statements lack a category and ground`);
  }
  for (const threshold of config.strikes.thresholds) {
    const dsa = actions.get(threshold.actionId)?.dsa;
    if (typeof dsa === 'object' && dsa.defaultPolicyId === undefined) {
      warnings.push(
        `strike threshold action ${threshold.actionId} has no dsa.defaultPolicyId: a threshold names no policy, so its statement lacks a category and ground`,
      );
    }
  }
  return warnings;
}

export type { ProblemList };
