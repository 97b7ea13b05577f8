import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ProjectionHost } from '#warden/storage';
import type { CatalogEntities, EntityKind } from '../../domain/catalog.events.js';
import { CATALOG_PROJECTION } from '../../projections/catalog.projection.js';
import { CatalogReader } from '../catalog-reader.js';
import { GetLiveEntitiesQuery } from './get-live-entities.query.js';

@QueryHandler(GetLiveEntitiesQuery)
export class GetLiveEntitiesHandler implements IQueryHandler<GetLiveEntitiesQuery<EntityKind>> {
  constructor(
    private readonly catalog: CatalogReader,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: GetLiveEntitiesQuery<EntityKind>): Promise<Array<CatalogEntities[EntityKind]>> {
    const live = await this.catalog.liveEntities(query.orgId, query.kind);
    const known = new Set(live.map((e) => e.id));
    if (query.expectedIds.every((id) => known.has(id))) return live;
    await this.projections.catchUp(CATALOG_PROJECTION);
    return this.catalog.liveEntities(query.orgId, query.kind);
  }
}
