import type { CatalogEntities, EntityKind } from '../domain/catalog.events.js';

export const CATALOG_ENTITIES = 'catalog_entities';
export const CATALOG_SETTINGS = 'catalog_settings';
export const CATALOG_HASH_BANK_SIZES = 'catalog_hash_bank_sizes';
/**
 * Where each organization's part of the catalog last changed: one document per organization and
 * entity kind or settings section (`catalogScope`), with the log position of the last event that
 * changed it. CatalogReader keeps an answer across other organizations' and other kinds' writes by it.
 */
export const CATALOG_VERSIONS = 'catalog_versions';

/** One entity of one organization; secrets stay sealed as the events hold them. */
export type CatalogEntityDoc<K extends EntityKind = EntityKind> = {
  orgId: string;
  kind: K;
  id: string;
  archived: boolean;
  semanticVersion: number;
  entity: CatalogEntities[K];
};

export const entityDocId = (orgId: string, kind: EntityKind, id: string) => `${orgId}:${kind}:${id}`;
export const settingsDocId = (orgId: string, section: string) => `${orgId}:${section}`;
export const hashBankSizeDocId = (orgId: string, bankId: string) => `${orgId}:${bankId}`;

/** The version document's id of an organization's entity kind (`entity:<kind>`) or settings section (`settings:<section>`). */
export const catalogScope = (orgId: string, scope: `entity:${EntityKind}` | `settings:${string}`) => `${orgId}:${scope}`;

export type CatalogVersionDoc = { orgId: string; position: number };

export type HashBankSizeDoc = { orgId: string; bankId: string; config: number; import: number };
