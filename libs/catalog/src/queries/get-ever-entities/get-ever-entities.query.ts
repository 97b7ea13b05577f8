import { Query } from '@nestjs/cqrs';
import type { CatalogEntities, EntityKind } from '../../domain/catalog.events.js';

/**
 * An organization's entities of one kind, live and archived, each as last applied, ordered by id:
 * for what was done under an entity that is gone since (a user's score keeps the penalty of an
 * action archived after it was taken).
 */
export class GetEverEntitiesQuery<K extends EntityKind> extends Query<Array<CatalogEntities[K]>> {
  constructor(
    readonly orgId: string,
    readonly kind: K,
  ) {
    super();
  }
}
