import { isDeepStrictEqual } from 'node:util';
import { type Decider, invalidInput } from '#warden/kernel';
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
import type { AppealSettings, OrgSettings, SsoSettings, StrikeSettings } from './catalog.model.js';
import type { Path } from './org-config/config-problems.js';
import { defaultSsoSettings, validateSsoSettings } from './org-config/sso.section-parser.js';

export interface StoredEntity<E> {
  readonly entity: E;
  readonly archived: boolean;
  readonly semanticVersion: number;
}

/** The organization's catalog as its configuration stream says, with secrets in plaintext. */
export interface CatalogState {
  readonly entities: { readonly [K in EntityKind]: Readonly<Record<string, StoredEntity<CatalogEntities[K]>>> };
  readonly settings: OrgSettings | null;
  readonly strikes: StrikeSettings | null;
  readonly appeals: AppealSettings | null;
  readonly sso: SsoSettings | null;
}

/** What the file declares, in the shapes the events record. */
export interface DesiredCatalog {
  readonly entities: { readonly [K in EntityKind]: readonly CatalogEntities[K][] };
  readonly settings: OrgSettings;
  readonly strikes: StrikeSettings;
  readonly appeals: AppealSettings;
  readonly sso: SsoSettings;
}

export type ApplyCatalog = { type: 'ApplyCatalog'; desired: DesiredCatalog; prune: boolean };
/**
 * The console's change of the `sso:` section: the settings as the request gives them, checked as
 * the file's are. Without a `cert` the stored certificate is kept (the console never shows it, so
 * it cannot send it back); `cert: null` removes it.
 */
export type ChangeSsoSettings = { type: 'ChangeSsoSettings'; settings: Readonly<Record<string, unknown>> };
export type OrgConfigCommand = ApplyCatalog | ChangeSsoSettings;

export interface CatalogPlan {
  readonly events: CatalogEvent[];
  readonly created: Array<{ kind: EntityKind; id: string }>;
  readonly updated: Array<{ kind: EntityKind; id: string }>;
  readonly archived: Array<{ kind: EntityKind; id: string }>;
  /** In the store, missing from the file, kept because --prune was not given. */
  readonly leftAlone: Array<{ kind: EntityKind; id: string }>;
  readonly settingsChanged: SettingsSection[];
}

const emptyEntities = () =>
  Object.fromEntries(ENTITY_KINDS.map((k) => [k, {}])) as unknown as CatalogState['entities'];

export const initialCatalogState: CatalogState = {
  entities: emptyEntities(),
  settings: null,
  strikes: null,
  appeals: null,
  sso: null,
};

/**
 * Compares the file with the stored catalog: one event per entity that is new, changed or
 * brought back; archival only with prune; nothing at all when they agree. A policy's
 * semanticVersion goes up by one on every change.
 */
export function planCatalog(command: ApplyCatalog, state: CatalogState): CatalogPlan {
  const plan: CatalogPlan = { events: [], created: [], updated: [], archived: [], leftAlone: [], settingsChanged: [] };
  for (const kind of ENTITY_KINDS) planKind(kind, command, state, plan);
  for (const section of Object.keys(SETTINGS_EVENTS) as SettingsSection[]) {
    const desired = command.desired[section];
    if (!isDeepStrictEqual(state[section], desired)) {
      plan.events.push({ type: SETTINGS_EVENTS[section], data: { [section]: desired } } as CatalogEvent);
      plan.settingsChanged.push(section);
    }
  }
  return plan;
}

function planKind<K extends EntityKind>(kind: K, command: ApplyCatalog, state: CatalogState, plan: CatalogPlan): void {
  const stored = state.entities[kind] as Record<string, StoredEntity<CatalogEntities[K]>>;
  const desired = command.desired.entities[kind] as readonly CatalogEntities[K][];
  const names = ENTITY_EVENTS[kind];
  const wanted = new Set<string>();
  for (const entity of desired) {
    wanted.add(entity.id);
    const current = stored[entity.id];
    if (current && !current.archived && isDeepStrictEqual(current.entity, entity)) continue;
    const data: { kind: K; entity: CatalogEntities[K]; semanticVersion?: number } = { kind, entity };
    if (kind === 'policy') data.semanticVersion = (current?.semanticVersion ?? 0) + 1;
    plan.events.push({ type: names.defined, data } as CatalogEvent);
    (current && !current.archived ? plan.updated : plan.created).push({ kind, id: entity.id });
  }
  for (const [id, current] of Object.entries(stored)) {
    if (wanted.has(id) || current.archived) continue;
    if (command.prune) {
      plan.events.push({ type: names.archived, data: { kind, id } } as CatalogEvent);
      plan.archived.push({ kind, id });
    } else {
      plan.leftAlone.push({ kind, id });
    }
  }
}

/** The SSO settings in force: an organization that never set `sso:` has the section's defaults. */
export const ssoSettingsOf = (state: CatalogState): SsoSettings => state.sso ?? defaultSsoSettings();

/** One SsoSettingsChanged with the whole section, or nothing when the settings are already so. */
export function decideSsoChange(command: ChangeSsoSettings, state: CatalogState): CatalogEvent[] {
  const current = ssoSettingsOf(state);
  const given = command.settings['cert'] !== undefined;
  const raw = given ? command.settings : { ...command.settings, cert: current.cert };
  const result = validateSsoSettings(raw, { checkCertificate: given });
  if (!result.ok) {
    throw invalidInput(...result.problems.map((p) => ({ title: 'Invalid SSO settings', detail: p.message, pointer: jsonPointer(p.path) })));
  }
  if (isDeepStrictEqual(current, result.sso)) return [];
  return [{ type: 'SsoSettingsChanged', data: { sso: result.sso } }];
}

/** RFC 6901: `~` and `/` in a segment are escaped. */
const jsonPointer = (path: Path): string => path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

export const orgConfigDecider: Decider<OrgConfigCommand, CatalogState, CatalogEvent> = {
  eventTypes: Object.fromEntries(CATALOG_EVENT_TYPES.map((t) => [t, true as const])),
  initialState: initialCatalogState,
  decide: (command, state) => (command.type === 'ApplyCatalog' ? planCatalog(command, state).events : decideSsoChange(command, state)),
  evolve(state, event) {
    if (isEntityDefined(event)) {
      const { kind, entity, semanticVersion } = event.data;
      const previous = state.entities[kind][entity.id];
      const next: StoredEntity<typeof entity> = {
        entity,
        archived: false,
        semanticVersion: semanticVersion ?? previous?.semanticVersion ?? 1,
      };
      return { ...state, entities: { ...state.entities, [kind]: { ...state.entities[kind], [entity.id]: next } } };
    }
    if (isEntityArchived(event)) {
      const { kind, id } = event.data;
      const previous = state.entities[kind][id];
      if (!previous) return state;
      return {
        ...state,
        entities: { ...state.entities, [kind]: { ...state.entities[kind], [id]: { ...previous, archived: true } } },
      };
    }
    switch (event.type) {
      case 'OrgSettingsChanged':
        // Recorded before requireSecondFactor existed: off, as a file without it means.
        return { ...state, settings: { ...event.data.settings, requireSecondFactor: event.data.settings.requireSecondFactor ?? false } };
      case 'StrikeSettingsChanged':
        return { ...state, strikes: event.data.strikes };
      case 'AppealSettingsChanged':
        return { ...state, appeals: event.data.appeals };
      case 'SsoSettingsChanged':
        return { ...state, sso: event.data.sso };
    }
    return state;
  },
};
