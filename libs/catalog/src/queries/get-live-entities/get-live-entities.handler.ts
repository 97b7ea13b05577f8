import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ProjectionHost } from '#warden/storage';
import type { CatalogEntities, EntityKind } from '../../domain/catalog.events.js';
import { CatalogReader } from '../catalog-reader.js';
import { readLiveCatalog } from '../get-live-catalog/get-live-catalog.handler.js';
import { GetLiveCatalogQuery } from '../get-live-catalog/get-live-catalog.query.js';
import { GetLiveEntitiesQuery } from './get-live-entities.query.js';

/** The one-kind form of GetLiveCatalogQuery, answered by the same read (and catch-up). */
@QueryHandler(GetLiveEntitiesQuery)
export class GetLiveEntitiesHandler implements IQueryHandler<GetLiveEntitiesQuery<EntityKind>> {
  constructor(
    private readonly catalog: CatalogReader,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: GetLiveEntitiesQuery<EntityKind>): Promise<Array<CatalogEntities[EntityKind]>> {
    const { orgId, kind, expectedIds } = query;
    const live = await readLiveCatalog(this.catalog, this.projections, new GetLiveCatalogQuery(orgId, [kind], { [kind]: expectedIds }));
    // A list of its own (CatalogReader.liveEntities maps each read into a new array).
    return live[kind] as Array<CatalogEntities[EntityKind]>;
  }
}
