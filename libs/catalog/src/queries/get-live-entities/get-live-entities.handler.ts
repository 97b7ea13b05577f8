import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { CatalogEntities, EntityKind } from '../../domain/catalog.events.js';
import { CatalogReader } from '../catalog-reader.js';
import { GetLiveEntitiesQuery } from './get-live-entities.query.js';

@QueryHandler(GetLiveEntitiesQuery)
export class GetLiveEntitiesHandler implements IQueryHandler<GetLiveEntitiesQuery<EntityKind>> {
  constructor(private readonly catalog: CatalogReader) {}

  execute(query: GetLiveEntitiesQuery<EntityKind>): Promise<Array<CatalogEntities[EntityKind]>> {
    return this.catalog.liveEntities(query.orgId, query.kind);
  }
}
