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

  async execute(query: GetLiveCatalogQuery<EntityKind>): Promise<LiveCatalog<EntityKind>> {
    const live = await this.read(query);
    const missing = query.kinds.some((kind) => {
      const known = new Set(live[kind].map((e) => e.id));
      return (query.expectedIds[kind] ?? []).some((id) => !known.has(id));
    });
    if (!missing) return live;
    await this.projections.catchUp(CATALOG_PROJECTION);
    return this.read(query);
  }

  private async read(query: GetLiveCatalogQuery<EntityKind>): Promise<LiveCatalog<EntityKind>> {
    const lists = await Promise.all(query.kinds.map((kind) => this.catalog.liveEntities(query.orgId, kind)));
    return Object.fromEntries(query.kinds.map((kind, i) => [kind, lists[i]!])) as unknown as LiveCatalog<EntityKind>;
  }
}
