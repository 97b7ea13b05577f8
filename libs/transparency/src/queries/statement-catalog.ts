import type { QueryBus } from '@nestjs/cqrs';
import { CATALOG_PROJECTION, DEFAULT_TRANSPARENCY_SETTINGS, GetCatalogSettingsQuery, GetEverEntitiesQuery } from '#warden/catalog';
import type { ProjectionHost } from '#warden/storage';
import type { StatementCatalog } from '../domain/statement-of-reasons.js';

/**
 * The mapping in force, with every entity ever defined (a decision may name one archived since).
 * The catalog's read model is caught up first: a CLI run right after `apply`, with no server
 * having built it, would otherwise find no mapping at all.
 */
export async function statementCatalog(queries: QueryBus, projections: ProjectionHost, orgId: string): Promise<StatementCatalog> {
  await projections.catchUp(CATALOG_PROJECTION);
  const [policies, actions, itemTypes, transparency] = await Promise.all([
    queries.execute(new GetEverEntitiesQuery(orgId, 'policy')),
    queries.execute(new GetEverEntitiesQuery(orgId, 'action')),
    queries.execute(new GetEverEntitiesQuery(orgId, 'itemType')),
    queries.execute(new GetCatalogSettingsQuery(orgId, 'transparency')),
  ]);
  return {
    policies: new Map(policies.map((p) => [p.id, p])),
    actions: new Map(actions.map((a) => [a.id, a])),
    itemTypes: new Map(itemTypes.map((t) => [t.id, t])),
    transparency: transparency ?? DEFAULT_TRANSPARENCY_SETTINGS,
  };
}
