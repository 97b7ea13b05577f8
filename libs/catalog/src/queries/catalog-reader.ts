import { Inject, Injectable } from '@nestjs/common';
import type { ReadStore } from '#warden/readstore';
import { READ_STORE } from '#warden/storage';
import type { CatalogEntities, EntityKind } from '../domain/catalog.events.js';
import type { AppealSettings, OrgSettings, SsoSettings, StrikeSettings } from '../domain/catalog.model.js';
import { CATALOG_ENTITIES, CATALOG_SETTINGS, type CatalogEntityDoc, settingsDocId } from '../projections/catalog.read-model.js';

/**
 * Reads an organization's live (not archived) catalog entities from the read model. Internal to
 * the catalog: other modules ask through GetLiveEntitiesQuery and GetCatalogSettingsQuery.
 */
@Injectable()
export class CatalogReader {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async live<K extends EntityKind>(orgId: string, kind: K): Promise<Array<CatalogEntityDoc<K>>> {
    return this.readStore.find<CatalogEntityDoc<K>>(
      CATALOG_ENTITIES,
      { orgId, kind, archived: false },
      { sort: [{ field: 'id', direction: 'asc' }] },
    );
  }

  async liveEntities<K extends EntityKind>(orgId: string, kind: K): Promise<Array<CatalogEntities[K]>> {
    return (await this.live(orgId, kind)).map((d) => d.entity);
  }

  /** An organization's settings section as last applied (secrets sealed); undefined if never set. */
  async settings<S extends keyof CatalogSettings>(orgId: string, section: S): Promise<CatalogSettings[S] | undefined> {
    return (await this.readStore.get<{ value: CatalogSettings[S] }>(CATALOG_SETTINGS, settingsDocId(orgId, section)))?.value;
  }
}

/** The settings sections of the catalog read model, as their events carry them. */
export interface CatalogSettings {
  settings: OrgSettings;
  strikes: StrikeSettings;
  appeals: AppealSettings;
  sso: SsoSettings;
}
