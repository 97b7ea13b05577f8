import { isDeepStrictEqual } from 'node:util';
import { conflict, type Decider, invalidField, invalidInput, notFound, ownValue } from '#warden/kernel';
import {
  CATALOG_EVENT_TYPES,
  type CatalogEntities,
  type CatalogEvent,
  ENTITY_EVENTS,
  ENTITY_KINDS,
  type EntityKind,
  isEntityArchived,
  isEntityDefined,
  SETTINGS_EVENTS,
  type SettingsSection,
} from './catalog.events.js';
import {
  type AppealSettings,
  CHILD_SAFETY_QUEUE_ID,
  DEFAULT_INBOUND_TOPIC_SETTINGS,
  DEFAULT_MANAGEMENT,
  DEFAULT_SCORE_SETTINGS,
  DEFAULT_TRANSPARENCY_SETTINGS,
  type DefinitionSource,
  type InboundTopicSettings,
  type PartialItemsSettings,
  type ManagementSettings,
  type OrgSettings,
  type QueueDefinition,
  type ScoreSettings,
  type SsoSettings,
  type StrikeSettings,
  type TransparencySettings,
} from './catalog.model.js';
import type { Path } from './org-config/config-problems.js';
import { validateQueueDefinition } from './org-config/queues.section-parser.js';
import { defaultSsoSettings, validateSsoSettings } from './org-config/sso.section-parser.js';
import { withOrgSettingsDefaults } from './org-settings.upcasters.js';

export interface StoredEntity<E> {
  readonly entity: E;
  readonly archived: boolean;
  readonly semanticVersion: number;
  /** Who defined it last. Kinds only a file defines, and events older than the field, read as the file (see the upcasters). */
  readonly source: DefinitionSource;
}

/** An event without a recorded source was written by an apply (the only writer before the console). */
export const FILE_SOURCE: DefinitionSource = { managedBy: 'file', file: null };
const CONSOLE_SOURCE: DefinitionSource = { managedBy: 'console', file: null };

/** The organization's catalog as its configuration stream says, with secrets in plaintext. */
export interface CatalogState {
  readonly entities: { readonly [K in EntityKind]: Readonly<Record<string, StoredEntity<CatalogEntities[K]>>> };
  readonly settings: OrgSettings | null;
  readonly strikes: StrikeSettings | null;
  readonly appeals: AppealSettings | null;
  readonly sso: SsoSettings | null;
  /** Who set the SSO settings last; null while they were never set. */
  readonly ssoSource: DefinitionSource | null;
  readonly scores: ScoreSettings | null;
  /** null: never applied with `inboundTopic:`, which means the topic is off for the organization. */
  readonly inboundTopic: InboundTopicSettings | null;
  /** null: no endpoint (never applied with `partialItems:`, or applied without it). */
  readonly partialItems: PartialItemsSettings | null;
  /** null: never applied with `transparency:`, which means statements and reports are off. */
  readonly transparency: TransparencySettings | null;
  /** null: never applied with `management:`, which means every section is the file's. */
  readonly management: ManagementSettings | null;
}

/** What the file declares, in the shapes the events record. */
export interface DesiredCatalog {
  readonly entities: { readonly [K in EntityKind]: readonly CatalogEntities[K][] };
  readonly settings: OrgSettings;
  readonly strikes: StrikeSettings;
  readonly appeals: AppealSettings;
  readonly sso: SsoSettings;
  readonly scores: ScoreSettings;
  readonly inboundTopic: InboundTopicSettings;
  readonly partialItems: PartialItemsSettings | null;
  readonly transparency: TransparencySettings;
  readonly management: ManagementSettings;
}

/** `file`: the applied file's name, recorded as the source of what the apply defines (null: not known). */
export type ApplyCatalog = { type: 'ApplyCatalog'; desired: DesiredCatalog; prune: boolean; file?: string | null };
/**
 * The console's change of the `sso:` section: the settings as the request gives them, checked as
 * the file's are. Without a `cert` the stored certificate is kept (the console never shows it, so
 * it cannot send it back); `cert: null` removes it.
 */
export type ChangeSsoSettings = { type: 'ChangeSsoSettings'; settings: Readonly<Record<string, unknown>> };
/**
 * The console's creation or change of one review queue (an entry of `queues:`), as the request
 * gives it. `create` without an `id` derives one from the name; `update` replaces the whole
 * definition of a live queue (omitted fields take their file defaults, as in the file).
 */
export type DefineQueue = { type: 'DefineQueue'; mode: 'create' | 'update'; queue: Readonly<Record<string, unknown>> };
export type OrgConfigCommand = ApplyCatalog | ChangeSsoSettings | DefineQueue;

export interface CatalogPlan {
  readonly events: CatalogEvent[];
  readonly created: Array<{ kind: EntityKind; id: string }>;
  readonly updated: Array<{ kind: EntityKind; id: string }>;
  readonly archived: Array<{ kind: EntityKind; id: string }>;
  /** In the store, missing from the file, kept because --prune was not given. */
  readonly leftAlone: Array<{ kind: EntityKind; id: string }>;
  readonly settingsChanged: SettingsSection[];
  /** What the console changed since the file last defined it, and what this apply does with it. */
  readonly drift: DriftEntry[];
}

/**
 * A queue, or the SSO settings (`kind: 'sso'`, id `sso`), last changed in the console.
 * `overwrite`: the file's definition replaces it; `archive`: --prune archives it (not in the file);
 * `leave`: kept as the console left it (console management, or not in the file without --prune).
 */
export interface DriftEntry {
  readonly kind: 'queue' | 'sso';
  readonly id: string;
  readonly outcome: 'overwrite' | 'archive' | 'leave';
}

const emptyEntities = () => Object.fromEntries(ENTITY_KINDS.map((k) => [k, {}])) as unknown as CatalogState['entities'];

export const initialCatalogState: CatalogState = {
  entities: emptyEntities(),
  settings: null,
  strikes: null,
  appeals: null,
  sso: null,
  ssoSource: null,
  scores: null,
  inboundTopic: null,
  partialItems: null,
  transparency: null,
  management: null,
};

/**
 * Compares the file with the stored catalog: one event per entity that is new, changed or
 * brought back; archival only with prune; nothing at all when they agree. A policy's
 * semanticVersion goes up by one on every change.
 */
export function planCatalog(command: ApplyCatalog, state: CatalogState): CatalogPlan {
  const plan: CatalogPlan = { events: [], created: [], updated: [], archived: [], leftAlone: [], settingsChanged: [], drift: [] };
  for (const kind of ENTITY_KINDS) planKind(kind, command, state, plan);
  for (const section of Object.keys(SETTINGS_EVENTS) as SettingsSection[]) {
    const desired = command.desired[section];
    if (section === 'sso') {
      // The console changed it last: kept under console management, taken back by the file otherwise.
      if (state.ssoSource?.managedBy === 'console') {
        const outcome = command.desired.management.sso === 'console' ? 'leave' : 'overwrite';
        plan.drift.push({ kind: 'sso', id: 'sso', outcome });
        if (outcome === 'leave') continue;
      } else if (isDeepStrictEqual(storedSettings(state, section), desired)) continue;
      plan.events.push({ type: 'SsoSettingsChanged', data: { sso: command.desired.sso, source: fileSource(command) } });
      plan.settingsChanged.push(section);
      continue;
    }
    if (!isDeepStrictEqual(storedSettings(state, section), desired)) {
      plan.events.push({ type: SETTINGS_EVENTS[section], data: { [section]: desired } } as CatalogEvent);
      plan.settingsChanged.push(section);
    }
  }
  return plan;
}

const fileSource = (command: ApplyCatalog): DefinitionSource => ({ managedBy: 'file', file: command.file ?? null });

const consoleChanged = (current: StoredEntity<unknown> | undefined): boolean =>
  current !== undefined && !current.archived && current.source.managedBy === 'console';

function planKind<K extends EntityKind>(kind: K, command: ApplyCatalog, state: CatalogState, plan: CatalogPlan): void {
  const stored = state.entities[kind] as Record<string, StoredEntity<CatalogEntities[K]>>;
  const desired = command.desired.entities[kind] as readonly CatalogEntities[K][];
  const names = ENTITY_EVENTS[kind];
  const wanted = new Set<string>();
  // Only queues can be changed in the console; under console management apply leaves those changes be.
  const consoleKept = kind === 'queue' && command.desired.management.queues === 'console';
  for (const entity of desired) {
    wanted.add(entity.id);
    // Own properties only: an id such as `constructor` or `toString` is a customer's id, not Object's.
    const current = ownValue(stored, entity.id);
    const drifted = kind === 'queue' && consoleChanged(current);
    if (drifted) plan.drift.push({ kind: 'queue', id: entity.id, outcome: consoleKept ? 'leave' : 'overwrite' });
    if (drifted && consoleKept) continue;
    // A console-changed queue is redefined even when equal: the file takes it back (its source).
    if (!drifted && current && !current.archived && isDeepStrictEqual(current.entity, entity)) continue;
    const data: { kind: K; entity: CatalogEntities[K]; semanticVersion?: number; source?: DefinitionSource } = { kind, entity };
    if (kind === 'policy') data.semanticVersion = (current?.semanticVersion ?? 0) + 1;
    if (kind === 'queue') data.source = fileSource(command);
    plan.events.push({ type: names.defined, data } as CatalogEvent);
    (current && !current.archived ? plan.updated : plan.created).push({ kind, id: entity.id });
  }
  for (const [id, current] of Object.entries(stored)) {
    if (wanted.has(id) || current.archived) continue;
    const drifted = kind === 'queue' && consoleChanged(current);
    if (drifted) plan.drift.push({ kind: 'queue', id, outcome: consoleKept ? 'leave' : command.prune ? 'archive' : 'leave' });
    if (drifted && consoleKept) continue;
    if (command.prune) {
      plan.events.push({ type: names.archived, data: { kind, id } } as CatalogEvent);
      plan.archived.push({ kind, id });
    } else {
      plan.leftAlone.push({ kind, id });
    }
  }
}

/**
 * A section as stored. An organization whose stream predates `scores:` (or `inboundTopic:`) has
 * its defaults in force, so a file that leaves the section out (or states the defaults) changes
 * nothing there.
 */
function storedSettings(state: CatalogState, section: SettingsSection): CatalogState[SettingsSection] {
  if (section === 'scores') return state.scores ?? DEFAULT_SCORE_SETTINGS;
  if (section === 'inboundTopic') return state.inboundTopic ?? DEFAULT_INBOUND_TOPIC_SETTINGS;
  if (section === 'transparency') return state.transparency ?? DEFAULT_TRANSPARENCY_SETTINGS;
  if (section === 'management') return state.management ?? DEFAULT_MANAGEMENT;
  return state[section];
}

/** The SSO settings in force: an organization that never set `sso:` has the section's defaults. */
export const ssoSettingsOf = (state: CatalogState): SsoSettings => state.sso ?? defaultSsoSettings();

/** Who manages the SSO settings now, and the file that set them last (where known). */
export function ssoManagement(state: CatalogState): DefinitionSource {
  const source = state.ssoSource ?? CONSOLE_SOURCE;
  return { managedBy: (state.management ?? DEFAULT_MANAGEMENT).sso === 'console' ? 'console' : source.managedBy, file: source.file };
}

/** Who manages a queue now (the console when its section is handed to the console), and its last file. */
export function queueManagement(state: CatalogState, queueId: string): DefinitionSource | null {
  const stored = ownValue(state.entities.queue, queueId);
  if (!stored || stored.archived) return null;
  return { managedBy: (state.management ?? DEFAULT_MANAGEMENT).queues === 'console' ? 'console' : stored.source.managedBy, file: stored.source.file };
}

const fileNamed = (source: DefinitionSource) => (source.file ? `the configuration file ${source.file}` : "the organization's configuration file");

/** One SsoSettingsChanged with the whole section, or nothing when the settings are already so. */
export function decideSsoChange(command: ChangeSsoSettings, state: CatalogState): CatalogEvent[] {
  const managed = ssoManagement(state);
  if (managed.managedBy === 'file') {
    throw conflict(
      `The SSO settings are managed by ${fileNamed(managed)}: change its sso: section and run warden apply, or hand them to the console with management: { sso: console } in that file`,
    );
  }
  const current = ssoSettingsOf(state);
  const given = command.settings['cert'] !== undefined;
  const raw = given ? command.settings : { ...command.settings, cert: current.cert };
  const result = validateSsoSettings(raw, { checkCertificate: given });
  if (!result.ok) {
    throw invalidInput(...result.problems.map((p) => ({ title: 'Invalid SSO settings', detail: p.message, pointer: jsonPointer(p.path) })));
  }
  if (isDeepStrictEqual(current, result.sso)) return [];
  return [{ type: 'SsoSettingsChanged', data: { sso: result.sso, source: CONSOLE_SOURCE } }];
}

const liveQueues = (state: CatalogState): QueueDefinition[] => Object.values(state.entities.queue).flatMap((q) => (q.archived ? [] : [q.entity]));

/** A readable id from the name (`Spam reports` → `spam-reports`), suffixed until no live queue has it. */
function queueIdFrom(name: unknown, state: CatalogState): string | undefined {
  if (typeof name !== 'string') return undefined;
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (base === '') return undefined;
  const taken = (id: string) => id === CHILD_SAFETY_QUEUE_ID || ownValue(state.entities.queue, id)?.archived === false;
  let id = base;
  for (let n = 2; taken(id); n++) id = `${base}-${n}`;
  return id;
}

/**
 * One QueueDefined, or nothing when the queue is already so. Checked as the file's `queues:` are
 * (schema, defaults, the reserved child-safety id) and against the other live queues: at most one
 * default and one appeals default, as one file could not declare two.
 */
export function decideQueueDefinition(command: DefineQueue, state: CatalogState): CatalogEvent[] {
  const raw = { ...command.queue };
  if (command.mode === 'create' && raw['id'] === undefined) {
    const derived = queueIdFrom(raw['name'], state);
    if (derived !== undefined) raw['id'] = derived;
  }
  const result = validateQueueDefinition(raw);
  if (!result.ok) {
    throw invalidInput(...result.problems.map((p) => ({ title: 'Invalid queue', detail: p.message, pointer: jsonPointer(p.path) })));
  }
  const queue = result.queue;
  const current = ownValue(state.entities.queue, queue.id);
  const live = current !== undefined && !current.archived;
  if (command.mode === 'create' && live) throw conflict(`Queue ${queue.id} already exists; change it with PUT /api/console/v1/queues/${queue.id}`);
  if (command.mode === 'update' && !live) throw notFound(`No review queue ${queue.id}`);
  const managed = queueManagement(state, queue.id);
  if (managed?.managedBy === 'file') {
    throw conflict(
      `Queue ${queue.id} is managed by ${fileNamed(managed)}: change it there and run warden apply, or hand queues to the console with management: { queues: console } in that file`,
    );
  }
  const others = liveQueues(state).filter((q) => q.id !== queue.id);
  for (const [flagName, label] of [
    ['isDefault', 'the default'],
    ['isAppealsDefault', 'the appeals default'],
  ] as const) {
    const holder = queue[flagName] ? others.find((q) => q[flagName]) : undefined;
    if (holder) throw invalidField(`/${flagName}`, `only one queue may be ${label} (queue ${holder.id} already is; unset it there first)`);
  }
  if (live && isDeepStrictEqual(current.entity, queue)) return [];
  return [{ type: 'QueueDefined', data: { kind: 'queue', entity: queue, source: CONSOLE_SOURCE } } as CatalogEvent];
}

/** RFC 6901: `~` and `/` in a segment are escaped. */
const jsonPointer = (path: Path): string => path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

export const orgConfigDecider: Decider<OrgConfigCommand, CatalogState, CatalogEvent> = {
  eventTypes: Object.fromEntries(CATALOG_EVENT_TYPES.map((t) => [t, true as const])),
  initialState: initialCatalogState,
  decide(command, state) {
    switch (command.type) {
      case 'ApplyCatalog':
        return planCatalog(command, state).events;
      case 'ChangeSsoSettings':
        return decideSsoChange(command, state);
      case 'DefineQueue':
        return decideQueueDefinition(command, state);
    }
  },
  evolve(state, event) {
    if (isEntityDefined(event)) {
      const { kind, entity, semanticVersion, source } = event.data;
      const previous = ownValue(state.entities[kind], entity.id);
      const next: StoredEntity<typeof entity> = {
        entity,
        archived: false,
        semanticVersion: semanticVersion ?? previous?.semanticVersion ?? 1,
        source: source ?? FILE_SOURCE,
      };
      return { ...state, entities: { ...state.entities, [kind]: { ...state.entities[kind], [entity.id]: next } } };
    }
    if (isEntityArchived(event)) {
      const { kind, id } = event.data;
      const previous = ownValue(state.entities[kind], id);
      if (!previous) return state;
      return {
        ...state,
        entities: { ...state.entities, [kind]: { ...state.entities[kind], [id]: { ...previous, archived: true } } },
      };
    }
    switch (event.type) {
      case 'OrgSettingsChanged':
        // Recorded before requireSecondFactor or wellness existed: their defaults, as a file without them means.
        return { ...state, settings: withOrgSettingsDefaults(event.data.settings) };
      case 'StrikeSettingsChanged':
        return { ...state, strikes: event.data.strikes };
      case 'AppealSettingsChanged':
        return { ...state, appeals: event.data.appeals };
      case 'SsoSettingsChanged':
        return { ...state, sso: event.data.sso, ssoSource: event.data.source ?? FILE_SOURCE };
      case 'ScoreSettingsChanged':
        return { ...state, scores: event.data.scores };
      case 'InboundTopicSettingsChanged':
        return { ...state, inboundTopic: event.data.inboundTopic };
      case 'PartialItemsSettingsChanged':
        return { ...state, partialItems: event.data.partialItems };
      case 'TransparencySettingsChanged':
        return { ...state, transparency: event.data.transparency };
      case 'ManagementSettingsChanged':
        return { ...state, management: event.data.management };
    }
    return state;
  },
};
