import { Query } from '@nestjs/cqrs';
import type { CatalogEntities, EntityKind } from '../../domain/catalog.events.js';

/** An organization's live entities of several kinds, as one read of its configuration hands them out. */
export type LiveCatalog<K extends EntityKind> = { readonly [P in K]: ReadonlyArray<CatalogEntities[P]> };

/**
 * An organization's live (not archived) entities of the kinds named, ordered by id, in one
 * answer: the snapshot a flow reads once at its start and passes down, instead of asking for one
 * kind after the other (docs/architecture.md, "Main flows"). `expectedIds`: ids a request names,
 * per kind; when one of them is missing, the catalog read model may just be behind an apply
 * moments ago, so it is caught up and read again before the answer (which may still lack it).
 */
export class GetLiveCatalogQuery<K extends EntityKind> extends Query<LiveCatalog<K>> {
  constructor(
    readonly orgId: string,
    readonly kinds: readonly K[],
    readonly expectedIds: { readonly [P in K]?: readonly string[] } = {},
  ) {
    super();
  }
}
