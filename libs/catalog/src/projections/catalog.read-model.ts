import type { CatalogEntities, EntityKind } from '../domain/catalog.events.js';

export const CATALOG_ENTITIES = 'catalog_entities';
export const CATALOG_SETTINGS = 'catalog_settings';
export const CATALOG_HASH_BANK_SIZES = 'catalog_hash_bank_sizes';

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

export type HashBankSizeDoc = { orgId: string; bankId: string; config: number; import: number };
