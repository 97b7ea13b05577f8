/**
 * The moderation catalog of one organization, as the configuration file declares it (docs/configuration-as-code.md, "The file"), after defaults.
 * Plain JSON throughout: these shapes travel inside events.
 */
import type { Role } from '#warden/identity/contracts';
import type {
  DsaAccountType,
  DsaCategory,
  DsaContentType,
  DsaCountry,
  DsaDecisionAccount,
  DsaDecisionGround,
  DsaDecisionMonetary,
  DsaDecisionProvision,
  DsaDecisionVisibility,
  DsaKeyword,
} from './dsa-vocabulary.js';

export const ITEM_KINDS = ['CONTENT', 'USER', 'THREAD'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

export const FIELD_TYPES = ['STRING', 'NUMBER', 'BOOLEAN', 'IMAGE', 'AUDIO', 'VIDEO', 'GEOHASH', 'DATETIME', 'RELATED_ITEM', 'URL'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const PENALTIES = ['NONE', 'LOW', 'MEDIUM', 'HIGH', 'SEVERE'] as const;
export type Penalty = (typeof PENALTIES)[number];

export const ACTION_KINDS = ['CUSTOMER_DEFINED_ACTION', 'ENQUEUE_TO_MRT', 'ENQUEUE_TO_CHILD_SAFETY'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

export const RULE_STATUSES = ['LIVE', 'BACKGROUND', 'DRAFT', 'EXPIRED'] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];

export const HASH_TYPES = ['PDQ', 'MD5', 'SHA256'] as const;
export type HashType = (typeof HASH_TYPES)[number];

export const CONJUNCTIONS = ['AND', 'OR', 'XOR'] as const;
export type Conjunction = (typeof CONJUNCTIONS)[number];

export const COMPARATORS = ['EQUALS', 'NOT_EQUAL_TO', 'LT', 'LTE', 'GT', 'GTE', 'CONTAINS', 'IS_UNAVAILABLE', 'IS_NOT_PROVIDED'] as const;
export type Comparator = (typeof COMPARATORS)[number];

export const BUILTIN_INPUTS = ['ALL_TEXT', 'ANY_IMAGE', 'CREATOR', 'ITEM', 'REPORT_REASON', 'REPORTED_POLICY', 'REPORT_COUNT'] as const;
export type BuiltinInput = (typeof BUILTIN_INPUTS)[number];

/** The inputs a report brings along: routing rules only, and all that rules on them read. */
export const REPORT_INPUTS: ReadonlySet<string> = new Set<BuiltinInput>(['REPORT_REASON', 'REPORTED_POLICY', 'REPORT_COUNT']);

export const SIGNAL_TYPES = [
  'TEXT_CONTAINS',
  'TEXT_MATCHES_REGEX',
  'TEXT_BANK',
  'IMAGE_HASH_MATCH',
  'IMAGE_HASH_DISTANCE',
  'USER_STRIKE_COUNT',
  'USER_SCORE',
  'GEO_WITHIN',
  'CREATOR_SUBMISSION_COUNT',
  'HTTP_SIGNAL',
] as const;
export type SignalType = (typeof SIGNAL_TYPES)[number];

// The roles are identity's access table (docs/console-access.md, "Roles and what they may do"), re-exported for the configuration's `users:`.
export { ROLES, type Role } from '#warden/identity/contracts';

export interface OrgSettings {
  requireDecisionReason: boolean;
  requirePolicyForDecisions: boolean;
  /** Every dashboard user must enroll a TOTP second factor before using the console. */
  requireSecondFactor: boolean;
  /**
   * AUDITOR users see personal data in histories and may export it (docs/configuration-as-code.md, "Personal data for auditors"; default off):
   * the organization's grant, recorded with its configuration like every setting.
   */
  auditorPersonalData: boolean;
  /** How the console shows graphic media to moderators. */
  wellness: WellnessSettings;
}

/** Blur levels of graphic media in the console: 0 shows it as it is, 3 blurs most. */
export const BLUR_LEVELS = [0, 1, 2, 3] as const;
export type BlurLevel = (typeof BLUR_LEVELS)[number];

/** `org.settings.wellness`: what protects moderators from what they review. */
export interface WellnessSettings {
  /** Blur of graphic media until a moderator reveals it; 0: none. */
  blur: BlurLevel;
  /** Graphic media shown in greyscale. */
  greyscale: boolean;
  /** Suggest a break after this many graphic items; 0: never. */
  breakAfterItems: number;
  /** When a moderator's browser loads an item's images and video (MEDIA_LOADING). */
  loadMedia: MediaLoading;
}

/**
 * `ON_OPEN`: with the job, shown blurred until revealed. `ON_REVEAL`: only once the moderator
 * reveals it. Media is loaded straight from its URL (docs/console.md), so its host learns the
 * moderator's address and when they looked: a host the item's author controls would learn it as
 * soon as a job opens; ON_REVEAL tells it only when someone chooses to look, at the cost of the
 * blurred preview.
 */
export const MEDIA_LOADING = ['ON_OPEN', 'ON_REVEAL'] as const;
export type MediaLoading = (typeof MEDIA_LOADING)[number];

export const DEFAULT_WELLNESS_SETTINGS: Readonly<WellnessSettings> = Object.freeze({ blur: 2, greyscale: true, breakAfterItems: 0, loadMedia: 'ON_OPEN' });

export interface FieldDefinition {
  name: string;
  type: FieldType;
  required: boolean;
  array: boolean;
  /** RELATED_ITEM only: item types the related item may be of; [] means any. */
  itemTypeIds: string[];
}

/** Which fields play known parts: creator, createdAt, thread (CONTENT, THREAD), displayName (USER). */
export type FieldRoles = { [role: string]: string };

export interface ItemTypeDefinition {
  id: string;
  name: string;
  kind: ItemKind;
  version: string | null;
  fields: FieldDefinition[];
  roles: FieldRoles;
  /** What the DSA statements of reasons call this item type's content (docs/transparency.md); absent: not mapped. */
  dsa?: ItemTypeDsaMapping;
}

/** `itemTypes[].dsa`: the Transparency Database's `content_type` (and `content_language`) of items of the type. */
export interface ItemTypeDsaMapping {
  contentType: DsaContentType[];
  /** Required with CONTENT_TYPE_OTHER, only then. */
  contentTypeOther?: string;
  contentLanguage?: string;
}

/**
 * `policies[].dsa`: the statement's category and grounds when a decision names the policy.
 * Field names are the Transparency Database's attributes in camelCase (docs/transparency.md).
 */
export interface PolicyDsaMapping {
  category: DsaCategory;
  categorySpecification?: DsaKeyword[];
  /** Only with KEYWORD_OTHER among the specifications. */
  categorySpecificationOther?: string;
  decisionGround: DsaDecisionGround;
  /** DECISION_GROUND_ILLEGAL_CONTENT: the legal ground relied on, and why the content is illegal under it. */
  illegalContentLegalGround?: string;
  illegalContentExplanation?: string;
  /** DECISION_GROUND_INCOMPATIBLE_CONTENT: the clause of the terms and conditions, and why the content breaks it. */
  incompatibleContentGround?: string;
  incompatibleContentExplanation?: string;
  /** DECISION_GROUND_INCOMPATIBLE_CONTENT only: the content is also considered illegal. */
  incompatibleContentIllegal?: boolean;
  decisionGroundReferenceUrl?: string;
}

/**
 * `actions[].dsa`: the restriction the action imposes, as the statement states it. At least one
 * of the four kinds; `durationDays` ends each after that many days (absent: indefinite).
 */
export interface ActionDsaRestriction {
  decisionVisibility?: DsaDecisionVisibility[];
  decisionVisibilityOther?: string;
  decisionMonetary?: DsaDecisionMonetary;
  decisionMonetaryOther?: string;
  decisionProvision?: DsaDecisionProvision;
  decisionAccount?: DsaDecisionAccount;
  durationDays?: number;
  /** The policy whose grounds a statement states when the decision names none (a strike threshold's action). */
  defaultPolicyId?: string;
}

/** `false`: the action restricts nothing (no statement is due); absent: not mapped yet. */
export type ActionDsaMapping = ActionDsaRestriction | false;

export interface PolicyDefinition {
  id: string;
  name: string;
  parentId: string | null;
  policyText: string | null;
  enforcementGuidelines: string | null;
  policyType: string | null;
  penalty: Penalty;
  userStrikeCount: number;
  applyUserStrikeCountConfigToChildren: boolean;
  /** The DSA statement's category and grounds for decisions under this policy; absent: not mapped. */
  dsa?: PolicyDsaMapping;
}

export interface ActionParameter {
  name: string;
  type: FieldType;
  required: boolean;
}

/**
 * Where a customer-defined action (or an appeal decision) is sent. The URL and the header values
 * are secrets (a webhook token often rides in the query string): plaintext only in memory. In
 * events and the read model the header values are sealed, `url` is the URL without user info,
 * query string or fragment (for display), and `sealedUrl` holds the whole URL sealed.
 */
export interface CallbackDefinition {
  url: string;
  headers: { [name: string]: string };
  sealedUrl?: { kid: string; iv: string; ct: string; tag: string };
}

export interface ActionDefinition {
  id: string;
  name: string;
  description: string | null;
  kind: ActionKind;
  itemTypeIds: string[];
  applyUserStrikes: boolean;
  penalty: Penalty;
  /** CUSTOMER_DEFINED_ACTION only. */
  callback: CallbackDefinition | null;
  body: { [key: string]: unknown };
  parameters: ActionParameter[];
  /** The restriction a DSA statement states for it; absent: not mapped. */
  dsa?: ActionDsaMapping;
}

export interface TextBankDefinition {
  id: string;
  name: string;
  terms: string[];
  regexes: string[];
}

export interface HashBankDefinition {
  id: string;
  name: string;
  hashType: HashType;
  /** PDQ only. */
  maxDistance: number | null;
  /** The hashes the file declares (inline and `hashesFile`), lower-case, de-duplicated. */
  hashes: string[];
}

export type ConditionInput = { field: string } | { builtin: BuiltinInput };

export interface ConditionSignal {
  type: SignalType;
  args: { [key: string]: unknown };
}

export interface LeafCondition {
  input: ConditionInput;
  signal: ConditionSignal | null;
  comparator: Comparator;
  /** Absent for IS_UNAVAILABLE / IS_NOT_PROVIDED. */
  value: unknown;
}

export interface ConditionSet {
  conjunction: Conjunction;
  conditions: Array<LeafCondition | ConditionSet>;
}

export interface RuleDefinition {
  id: string;
  name: string;
  status: RuleStatus;
  itemTypeIds: string[];
  tags: string[];
  maxDailyActions: number | null;
  expiresAt: string | null;
  actionIds: string[];
  policyIds: string[];
  conditionSet: ConditionSet;
}

export const QUEUE_ORDERS = ['FIFO', 'PRIORITY'] as const;
export type QueueOrder = (typeof QUEUE_ORDERS)[number];

export interface QueueDefinition {
  id: string;
  name: string;
  isDefault: boolean;
  isAppealsDefault: boolean;
  lockTimeoutSeconds: number;
  /** FIFO: oldest first. PRIORITY: more reports, then more severe policies, then older first. */
  order: QueueOrder;
  /** Jobs waiting longer than this are closed with AUTOMATIC_CLOSE; null: never. */
  autoCloseAfterDays: number | null;
}

export interface RoutingRuleDefinition {
  id: string;
  name: string;
  queueId: string;
  itemTypeIds: string[];
  conditionSet: ConditionSet;
}

export interface StrikeSettings {
  windowDays: number | null;
  thresholds: Array<{ strikes: number; actionId: string }>;
}

/** `scores:` — how a user's penalty points per submission map to a score from 1 (worst) to 5 (best). */
export interface ScoreSettings {
  /** Points of a penalty level; an (action, policy) pair scores action weight + policy weight. */
  penaltyWeights: Record<Penalty, number>;
  /** Ascending ratio bounds: a ratio at or below the first scores 5, … above the last scores 1. */
  thresholds: [number, number, number, number];
}

/** The `scores:` section's defaults, also in force for an organization whose configuration predates it. */
export const DEFAULT_SCORE_SETTINGS: Readonly<ScoreSettings> = Object.freeze({
  penaltyWeights: Object.freeze({ NONE: 0, LOW: 1, MEDIUM: 3, HIGH: 9, SEVERE: 27 }),
  thresholds: Object.freeze([0.01, 0.05, 0.1, 0.25]) as unknown as [number, number, number, number],
});

/**
 * `inboundTopic:` — whether the organization takes items from the inbound topic
 * ITEM_SUBMISSION_EVENT (docs/inbound-topic.md). The subject is not set here: it is
 * `<WARDEN_NATS_SUBJECT_PREFIX>.<orgId>.items`, the one subject the deployment's consumer reads for
 * the organization; who may publish on it is the broker's configuration (a user per organization),
 * so no credentials reference is kept here either (docs/configuration-as-code.md).
 */
export interface InboundTopicSettings {
  /** False (the default): a message on the organization's subject is dead-lettered with a 403. */
  enabled: boolean;
}

/** The `inboundTopic:` section's defaults, also in force for an organization whose configuration predates it. */
export const DEFAULT_INBOUND_TOPIC_SETTINGS: Readonly<InboundTopicSettings> = Object.freeze({ enabled: false });

/**
 * `partialItems:` — the customer's endpoint from which Warden fetches whole items by identifier
 * (docs/partial-items.md): for an item sent with `typeSchemaVariant: partial`
 * whose rules need fields it lacks, a related item Warden never received, and the console's
 * "load the full item". Null (the section left out): no endpoint; such conditions stay unknown.
 */
export interface PartialItemsSettings {
  /** Absolute http(s) URL; a secret like a callback URL (sealed whole in the log). */
  url: string;
  /** In the log and read models: the whole URL sealed, `url` then without query string or user info. */
  sealedUrl?: CallbackDefinition['sealedUrl'];
  /** Sent with every request; values are secrets (`${NAME}` references), sealed in the log. */
  headers: { [name: string]: string };
  /** One attempt, connect to last byte. */
  timeoutMs: number;
  /** How long a fetched item answers for its identifier without asking again (0: never cached). */
  cacheSeconds: number;
  /** Requests in flight to the endpoint at once for the organization; the others wait. */
  maxConcurrency: number;
  /** Attempts after the first that failed (timeout, network, 5xx, 429), with backoff. */
  retries: number;
}

/** Defaults of the optional keys of `partialItems:`. */
export const DEFAULT_PARTIAL_ITEMS = Object.freeze({ timeoutMs: 2000, cacheSeconds: 300, maxConcurrency: 8, retries: 2 });

/**
 * `transparency:` — DSA statements of reasons and transparency reports (docs/transparency.md).
 * A file without the section leaves them off (`enabled: false`): no mapping warnings at apply.
 */
export interface TransparencySettings {
  enabled: boolean;
  /** `territorial_scope`: EU/EEA country codes where the restrictions apply. */
  territorialScope: DsaCountry[];
  /** Reporter types (the reporter's item type id) whose reports are notices of trusted flaggers (DSA Art. 22). */
  trustedFlaggers: string[];
  /** `account_type` of the accounts the platform serves; null: not stated. */
  accountType: DsaAccountType | null;
  /**
   * Where statements are submitted (the Transparency Database's multiple endpoint) and with what
   * authorization (`Authorization: Bearer <token>`, from a `${NAME}` reference), sealed in the log
   * like a callback's URL and headers. Absent: statements are not submitted.
   */
  submission?: CallbackDefinition;
}

export const DEFAULT_TRANSPARENCY_SETTINGS: Readonly<TransparencySettings> = Object.freeze({
  enabled: false,
  territorialScope: [],
  trustedFlaggers: [],
  accountType: null,
});

export interface AppealSettings {
  callback: CallbackDefinition | null;
  body: { [key: string]: unknown };
}

export interface DashboardUser {
  email: string;
  roles: Role[];
}

export interface SsoSettings {
  saml_enabled: boolean;
  sso_url: string | null;
  /** Secret: sealed in events, never returned. */
  cert: string | null;
  /** False: this organization's users sign in through SSO only. */
  passwordLogin: boolean;
  /** Just-in-time provisioning: an unknown email in a valid assertion becomes a user with `defaultRoles`. */
  jit: { enabled: boolean; defaultRoles: Role[] };
  /** The assertion attribute that holds the user's IdP groups; null: roles are not taken from the IdP. */
  roleAttribute: string | null;
  /** IdP group → the roles it grants; a user gets the union of its groups' roles at each login. */
  roleMap: { [group: string]: Role[] };
  /** False: a signed Response around an unsigned assertion is accepted (the Response signature still is required). */
  wantAssertionsSigned: boolean;
}

/** A whole configuration file after validation and defaults. */
export interface OrgConfig {
  org: { id: string; name: string; settings: OrgSettings };
  itemTypes: ItemTypeDefinition[];
  policies: PolicyDefinition[];
  actions: ActionDefinition[];
  textBanks: TextBankDefinition[];
  hashBanks: HashBankDefinition[];
  rules: RuleDefinition[];
  queues: QueueDefinition[];
  routingRules: RoutingRuleDefinition[];
  appealRoutingRules: RoutingRuleDefinition[];
  strikes: StrikeSettings;
  appeals: AppealSettings;
  scores: ScoreSettings;
  inboundTopic: InboundTopicSettings;
  partialItems: PartialItemsSettings | null;
  transparency: TransparencySettings;
  users: DashboardUser[];
  sso: SsoSettings;
  management: ManagementSettings;
}

/**
 * `management:` — who changes each section the console can also edit: `file` (the default: the
 * console refuses to change what the file defines, and apply overwrites console drift) or
 * `console` (the console changes it freely, and apply leaves what the console changed alone).
 */
export const MANAGERS = ['file', 'console'] as const;
export type Manager = (typeof MANAGERS)[number];
export interface ManagementSettings {
  queues: Manager;
  sso: Manager;
}
export const DEFAULT_MANAGEMENT: ManagementSettings = { queues: 'file', sso: 'file' };

/** Who last defined an entity or section: an applied file (its name, when recorded) or the console. */
export interface DefinitionSource {
  managedBy: Manager;
  file: string | null;
}

/** Built-in actions every organization has (docs/configuration-as-code.md, "Defaults and the actions list"). */
export const BUILTIN_ACTION_IDS = { mrt: 'enqueue-to-mrt', childSafety: 'enqueue-to-child-safety' } as const;
/** The child-safety queue always exists. */
export const CHILD_SAFETY_QUEUE_ID = 'child-safety';

/** The longest a claim may hold a job unrenewed: a day (a lock's expiry must be a time `Date` can write). */
export const MAX_LOCK_TIMEOUT_SECONDS = 86_400;
/** The longest a queue may keep a job waiting before it expires: a hundred years (the expiry sweep's cutoff must be a valid date). */
export const MAX_AUTO_CLOSE_DAYS = 36_500;
/** Its name wherever queues are listed (no organization declares it). */
export const CHILD_SAFETY_QUEUE_NAME = 'Child safety';
