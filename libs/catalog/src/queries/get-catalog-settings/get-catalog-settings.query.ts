import { Query } from '@nestjs/cqrs';
import type { CatalogSettings } from '../catalog-reader.js';

/** An organization's settings section as last applied (secrets sealed); undefined if never set. */
export class GetCatalogSettingsQuery<S extends keyof CatalogSettings> extends Query<CatalogSettings[S] | undefined> {
  constructor(
    readonly orgId: string,
    readonly section: S,
  ) {
    super();
  }
}
