import type { DomainEvent } from '#warden/kernel';
import type {
  ActionDefinition,
  AppealSettings,
  ItemTypeDefinition,
  OrgSettings,
  PolicyDefinition,
  QueueDefinition,
  RoutingRuleDefinition,
  RuleDefinition,
  DefinitionSource,
  ManagementSettings,
  ScoreSettings,
  SsoSettings,
  StrikeSettings,
  TextBankDefinition,
  HashType,
  InboundTopicSettings,
  PartialItemsSettings,
  TransparencySettings,
} from './catalog.model.js';

/** A hash bank as the configuration stream records it; its hashes live in the bank's own stream. */
export interface HashBankEntity {
  id: string;
  name: string;
  hashType: HashType;
  maxDistance: number | null;
  /** The hashes the configuration file declares: how many, and a digest to notice any change. */
  configHashes: { count: number; digest: string };
}

export interface OrderedRoutingRule extends RoutingRuleDefinition {
  /** Position in the file: routing rules run in order and the first that passes routes. */
  order: number;
}

/** Every kind of catalog entity, keyed by id within its organization. */
export interface CatalogEntities {
  itemType: ItemTypeDefinition;
  policy: PolicyDefinition;
  action: ActionDefinition;
  textBank: TextBankDefinition;
  hashBank: HashBankEntity;
  rule: RuleDefinition;
  queue: QueueDefinition;
  routingRule: OrderedRoutingRule;
  appealRoutingRule: OrderedRoutingRule;
}
export type EntityKind = keyof CatalogEntities;

/** Event type names per kind: past tense, readable in the audit history. */
export const ENTITY_EVENTS: { [K in EntityKind]: { defined: string; archived: string; section: string } } = {
  itemType: { defined: 'ItemTypeDefined', archived: 'ItemTypeArchived', section: 'itemTypes' },
  policy: { defined: 'PolicyDefined', archived: 'PolicyArchived', section: 'policies' },
  action: { defined: 'ActionDefined', archived: 'ActionArchived', section: 'actions' },
  textBank: { defined: 'TextBankDefined', archived: 'TextBankArchived', section: 'textBanks' },
  hashBank: { defined: 'HashBankDefined', archived: 'HashBankArchived', section: 'hashBanks' },
  rule: { defined: 'RuleDefined', archived: 'RuleArchived', section: 'rules' },
  queue: { defined: 'QueueDefined', archived: 'QueueArchived', section: 'queues' },
  routingRule: { defined: 'RoutingRuleDefined', archived: 'RoutingRuleArchived', section: 'routingRules' },
  appealRoutingRule: {
    defined: 'AppealRoutingRuleDefined',
    archived: 'AppealRoutingRuleArchived',
    section: 'appealRoutingRules',
  },
};
export const ENTITY_KINDS = Object.keys(ENTITY_EVENTS) as EntityKind[];

export type EntityDefined = DomainEvent<
  string,
  {
    kind: EntityKind;
    entity: CatalogEntities[EntityKind];
    semanticVersion?: number;
    /** Recorded on QueueDefined (v3), the kind the console can also define; other kinds come only from files. */
    source?: DefinitionSource;
  }
>;
export type EntityArchived = DomainEvent<string, { kind: EntityKind; id: string }>;

export type OrgSettingsChanged = DomainEvent<'OrgSettingsChanged', { settings: OrgSettings }>;
export type StrikeSettingsChanged = DomainEvent<'StrikeSettingsChanged', { strikes: StrikeSettings }>;
export type AppealSettingsChanged = DomainEvent<'AppealSettingsChanged', { appeals: AppealSettings }>;
/** `source` since v3 (an apply's file or the console). */
export type SsoSettingsChanged = DomainEvent<'SsoSettingsChanged', { sso: SsoSettings; source?: DefinitionSource }>;
export type ScoreSettingsChanged = DomainEvent<'ScoreSettingsChanged', { scores: ScoreSettings }>;
export type InboundTopicSettingsChanged = DomainEvent<'InboundTopicSettingsChanged', { inboundTopic: InboundTopicSettings }>;
/** `partialItems` null: the section was left out (no endpoint). URL and header values are sealed in the log. */
export type PartialItemsSettingsChanged = DomainEvent<'PartialItemsSettingsChanged', { partialItems: PartialItemsSettings | null }>;
/** `transparency:` (docs/transparency.md): DSA statements of reasons and reports. */
export type TransparencySettingsChanged = DomainEvent<'TransparencySettingsChanged', { transparency: TransparencySettings }>;
export type ManagementSettingsChanged = DomainEvent<'ManagementSettingsChanged', { management: ManagementSettings }>;

export type SettingsEvent =
  | OrgSettingsChanged
  | StrikeSettingsChanged
  | AppealSettingsChanged
  | SsoSettingsChanged
  | ScoreSettingsChanged
  | InboundTopicSettingsChanged
  | PartialItemsSettingsChanged
  | TransparencySettingsChanged
  | ManagementSettingsChanged;
export type CatalogEvent = EntityDefined | EntityArchived | SettingsEvent;

export const SETTINGS_EVENTS = {
  settings: 'OrgSettingsChanged',
  strikes: 'StrikeSettingsChanged',
  appeals: 'AppealSettingsChanged',
  sso: 'SsoSettingsChanged',
  scores: 'ScoreSettingsChanged',
  inboundTopic: 'InboundTopicSettingsChanged',
  partialItems: 'PartialItemsSettingsChanged',
  transparency: 'TransparencySettingsChanged',
  management: 'ManagementSettingsChanged',
} as const;
export type SettingsSection = keyof typeof SETTINGS_EVENTS;

export const CATALOG_EVENT_TYPES: string[] = [
  ...ENTITY_KINDS.flatMap((k) => [ENTITY_EVENTS[k].defined, ENTITY_EVENTS[k].archived]),
  ...Object.values(SETTINGS_EVENTS),
];

const DEFINED_KIND = new Map(ENTITY_KINDS.map((k) => [ENTITY_EVENTS[k].defined, k]));
const ARCHIVED_KIND = new Map(ENTITY_KINDS.map((k) => [ENTITY_EVENTS[k].archived, k]));
export const isEntityDefined = (e: { type: string }): e is EntityDefined => DEFINED_KIND.has(e.type);
export const isEntityArchived = (e: { type: string }): e is EntityArchived => ARCHIVED_KIND.has(e.type);

/** Hashes of a bank, in its own stream, in events of at most HASH_CHUNK hashes. */
export type HashBankHashesAdded = DomainEvent<'HashBankHashesAdded', { bankId: string; source: 'config' | 'import'; hashes: string[] }>;
/** `source`: apply's removal of configured hashes, or `bank remove`'s of imported ones. */
export type HashBankHashesRemoved = DomainEvent<'HashBankHashesRemoved', { bankId: string; source: 'config' | 'import'; hashes: string[] }>;
export type HashBankEvent = HashBankHashesAdded | HashBankHashesRemoved;
export const HASH_CHUNK = 10_000;
