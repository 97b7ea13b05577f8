import { Query } from '@nestjs/cqrs';
import type { CatalogEntities, EntityKind } from '../../domain/catalog.events.js';

/**
 * An organization's live (not archived) entities of one kind, ordered by id. `expectedIds`: ids a
 * request names; when one of them is missing, the catalog read model may just be behind an apply
 * moments ago, so it is caught up and read again before the answer (which may still lack it).
 */
export class GetLiveEntitiesQuery<K extends EntityKind> extends Query<Array<CatalogEntities[K]>> {
  constructor(
    readonly orgId: string,
    readonly kind: K,
    readonly expectedIds: readonly string[] = [],
  ) {
    super();
  }
}
