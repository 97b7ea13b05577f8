import { Inject, Injectable } from '@nestjs/common';
import { KEYRING, type Keyring, withSealedUrl } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { READ_STORE } from '#warden/storage';
import type { CatalogEntities, EntityKind } from '../domain/catalog.events.js';
import type { AppealSettings, CallbackDefinition, OrgSettings, SsoSettings, StrikeSettings } from '../domain/catalog.model.js';
import { CATALOG_ENTITIES, CATALOG_SETTINGS, type CatalogEntityDoc, settingsDocId } from '../projections/catalog.read-model.js';

/**
 * Reads an organization's live (not archived) catalog entities from the read model. Internal to
 * the catalog: other modules ask through GetLiveEntitiesQuery and GetCatalogSettingsQuery.
 */
@Injectable()
export class CatalogReader {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(KEYRING) private readonly keyring: Keyring,
  ) {}

  async live<K extends EntityKind>(orgId: string, kind: K): Promise<Array<CatalogEntityDoc<K>>> {
    return this.readStore.find<CatalogEntityDoc<K>>(
      CATALOG_ENTITIES,
      { orgId, kind, archived: false },
      { sort: [{ field: 'id', direction: 'asc' }] },
    );
  }

  async liveEntities<K extends EntityKind>(orgId: string, kind: K): Promise<Array<CatalogEntities[K]>> {
    return (await this.live(orgId, kind)).map((d) => this.withSealedCallback(d.entity));
  }

  /** An organization's settings section as last applied (secrets sealed); undefined if never set. */
  async settings<S extends keyof CatalogSettings>(orgId: string, section: S): Promise<CatalogSettings[S] | undefined> {
    const value = (await this.readStore.get<{ value: CatalogSettings[S] }>(CATALOG_SETTINGS, settingsDocId(orgId, section)))?.value;
    return value === undefined ? undefined : this.withSealedCallback(value);
  }

  /**
   * A read model built by an earlier release may still hold a callback URL in plaintext (until
   * `rebuild-read-models`): it leaves the catalog sealed all the same, so that no delivery event
   * records it in plaintext again.
   */
  private withSealedCallback<T>(value: T): T {
    const callback = (value as { callback?: CallbackDefinition | null }).callback;
    if (!callback) return value;
    const sealed = withSealedUrl(callback, this.keyring);
    return sealed === callback ? value : { ...value, callback: sealed };
  }
}

/** The settings sections of the catalog read model, as their events carry them. */
export interface CatalogSettings {
  settings: OrgSettings;
  strikes: StrikeSettings;
  appeals: AppealSettings;
  sso: SsoSettings;
}
