import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CatalogReader, type CatalogSettings } from '../catalog-reader.js';
import { GetCatalogSettingsQuery } from './get-catalog-settings.query.js';

@QueryHandler(GetCatalogSettingsQuery)
export class GetCatalogSettingsHandler implements IQueryHandler<GetCatalogSettingsQuery<keyof CatalogSettings>> {
  constructor(private readonly catalog: CatalogReader) {}

  execute(query: GetCatalogSettingsQuery<keyof CatalogSettings>): Promise<CatalogSettings[keyof CatalogSettings] | undefined> {
    return this.catalog.settings(query.orgId, query.section);
  }
}
