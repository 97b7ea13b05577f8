import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ProjectionHost } from '#warden/storage';
import type { EntityKind } from '../../domain/catalog.events.js';
import { CATALOG_PROJECTION } from '../../projections/catalog.projection.js';
import { CatalogReader } from '../catalog-reader.js';
import { GetLiveCatalogQuery, type LiveCatalog } from './get-live-catalog.query.js';

@QueryHandler(GetLiveCatalogQuery)
export class GetLiveCatalogHandler implements IQueryHandler<GetLiveCatalogQuery<EntityKind>> {
  constructor(
    private readonly catalog: CatalogReader,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  execute<K extends EntityKind>(query: GetLiveCatalogQuery<K>): Promise<LiveCatalog<K>> {
    return readLiveCatalog(this.catalog, this.projections, query);
  }
}

/**
 * The answer to GetLiveCatalogQuery: the kinds asked, read again after the catalog is caught up
 * when an expected id is missing. GetLiveEntitiesQuery (one kind) is answered by the same read.
 */
export async function readLiveCatalog<K extends EntityKind>(
  catalog: CatalogReader,
  projections: ProjectionHost,
  query: GetLiveCatalogQuery<K>,
): Promise<LiveCatalog<K>> {
  const read = async () => {
    const lists = await Promise.all(query.kinds.map((kind) => catalog.liveEntities(query.orgId, kind)));
    return Object.fromEntries(query.kinds.map((kind, i) => [kind, lists[i]!])) as unknown as LiveCatalog<K>;
  };
  const live = await read();
  const missing = query.kinds.some((kind) => {
    const known = new Set(live[kind].map((e) => e.id));
    return (query.expectedIds[kind] ?? []).some((id) => !known.has(id));
  });
  if (!missing) return live;
  await projections.catchUp(CATALOG_PROJECTION);
  return read();
}
