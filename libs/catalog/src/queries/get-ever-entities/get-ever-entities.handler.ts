import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { CatalogEntities, EntityKind } from '../../domain/catalog.events.js';
import { CatalogReader } from '../catalog-reader.js';
import { GetEverEntitiesQuery } from './get-ever-entities.query.js';

@QueryHandler(GetEverEntitiesQuery)
export class GetEverEntitiesHandler implements IQueryHandler<GetEverEntitiesQuery<EntityKind>> {
  constructor(private readonly catalog: CatalogReader) {}

  execute(query: GetEverEntitiesQuery<EntityKind>): Promise<Array<CatalogEntities[EntityKind]>> {
    return this.catalog.everEntities(query.orgId, query.kind);
  }
}
