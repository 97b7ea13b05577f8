import { eventProjection } from '#warden/eventstore';
import type { Json } from '#warden/kernel';
import type { ReadDocument } from '#warden/readstore';
import { CATALOG_EVENT_TYPES, type CatalogEvent, type HashBankEvent, isEntityArchived, isEntityDefined, SETTINGS_EVENTS } from '../domain/catalog.events.js';
import {
  CATALOG_ENTITIES,
  CATALOG_HASH_BANK_SIZES,
  CATALOG_SETTINGS,
  CATALOG_VERSIONS,
  type CatalogEntityDoc,
  catalogScope,
  entityDocId,
  type HashBankSizeDoc,
  hashBankSizeDocId,
  settingsDocId,
} from './catalog.read-model.js';

export const CATALOG_PROJECTION = 'catalog';

const SETTINGS_SECTION = new Map(Object.entries(SETTINGS_EVENTS).map(([section, type]) => [type as string, section]));

/** Every organization's catalog entities, settings, and hash-bank sizes. */
export const catalogProjection = eventProjection<CatalogEvent | HashBankEvent>({
  name: CATALOG_PROJECTION,
  collections: [CATALOG_ENTITIES, CATALOG_SETTINGS, CATALOG_HASH_BANK_SIZES, CATALOG_VERSIONS],
  eventTypes: [...CATALOG_EVENT_TYPES, 'HashBankHashesAdded', 'HashBankHashesRemoved'],
  // In the order the catalog reads them (by id): on MongoDB a sort the index does not serve is
  // done in memory, every entity of the kind at each cache miss (a review's reading).
  indexes: [
    { collection: CATALOG_ENTITIES, fields: ['orgId', 'kind', 'archived', 'id'] },
    { collection: CATALOG_ENTITIES, fields: ['orgId', 'kind', 'id'] },
  ],
  retiredIndexes: [{ collection: CATALOG_ENTITIES, fields: ['orgId', 'kind', 'archived'] }],
  async apply(recorded, ctx) {
    const orgId = recorded.metadata.orgId;
    const event = recorded;
    if (isEntityDefined(event)) {
      const { kind, entity, semanticVersion } = event.data;
      const id = entityDocId(orgId, kind, entity.id);
      const previous = await ctx.get<CatalogEntityDoc>(CATALOG_ENTITIES, id);
      const doc: CatalogEntityDoc = {
        orgId,
        kind,
        id: entity.id,
        archived: false,
        semanticVersion: semanticVersion ?? previous?.semanticVersion ?? 1,
        entity,
      };
      ctx.put(CATALOG_ENTITIES, id, doc as unknown as ReadDocument);
      ctx.put(CATALOG_VERSIONS, catalogScope(orgId, `entity:${kind}`), { orgId, position: recorded.position });
      return;
    }
    if (isEntityArchived(event)) {
      const id = entityDocId(orgId, event.data.kind, event.data.id);
      const previous = await ctx.get<CatalogEntityDoc>(CATALOG_ENTITIES, id);
      if (previous) ctx.put(CATALOG_ENTITIES, id, { ...previous, archived: true } as unknown as ReadDocument);
      ctx.put(CATALOG_VERSIONS, catalogScope(orgId, `entity:${event.data.kind}`), { orgId, position: recorded.position });
      return;
    }
    const section = SETTINGS_SECTION.get(event.type);
    if (section) {
      const value = (event.data as Record<string, Json>)[section]!;
      ctx.put(CATALOG_SETTINGS, settingsDocId(orgId, section), { orgId, section, value });
      ctx.put(CATALOG_VERSIONS, catalogScope(orgId, `settings:${section}`), { orgId, position: recorded.position });
      return;
    }
    if (event.type === 'HashBankHashesAdded' || event.type === 'HashBankHashesRemoved') {
      const id = hashBankSizeDocId(orgId, event.data.bankId);
      const size = (await ctx.get<HashBankSizeDoc>(CATALOG_HASH_BANK_SIZES, id)) ?? {
        orgId,
        bankId: event.data.bankId,
        config: 0,
        import: 0,
      };
      const delta = (event.type === 'HashBankHashesAdded' ? 1 : -1) * event.data.hashes.length;
      ctx.put(CATALOG_HASH_BANK_SIZES, id, { ...size, [event.data.source]: size[event.data.source] + delta });
    }
  },
});
