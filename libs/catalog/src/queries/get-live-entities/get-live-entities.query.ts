import { Query } from '@nestjs/cqrs';
import type { CatalogEntities, EntityKind } from '../../domain/catalog.events.js';

/** An organization's live (not archived) entities of one kind, ordered by id. */
export class GetLiveEntitiesQuery<K extends EntityKind> extends Query<Array<CatalogEntities[K]>> {
  constructor(
    readonly orgId: string,
    readonly kind: K,
  ) {
    super();
  }
}
