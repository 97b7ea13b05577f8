import type { QueryBus } from '@nestjs/cqrs';
import { BUILTIN_ACTION_IDS, GetLiveEntitiesQuery, namedTypeIds } from '#warden/catalog';
import { type ExecutionCatalog, executableActions } from './domain/execute-action-input.js';

/** The built-in enqueue actions: no catalog entities, and what asks for review rather than acting on the item. */
export const BUILTIN_IDS: ReadonlySet<string> = new Set(Object.values(BUILTIN_ACTION_IDS));

/**
 * The catalog as an execution request needs it (POST /api/v1/actions, a bulk action): the item
 * types, policies and actions the body names are waited for when applied moments ago.
 */
export async function readExecutionCatalog(queries: QueryBus, orgId: string, body: Record<string, unknown>): Promise<ExecutionCatalog> {
  const strings = (values: unknown) => (Array.isArray(values) ? values : [values]).filter((v): v is string => typeof v === 'string');
  const typeIds = [...new Set([...strings(body['itemTypeId']), ...namedTypeIds(body['reportedItems'], body['items'])])];
  const [types, policies, actions] = await Promise.all([
    queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType', typeIds)),
    queries.execute(new GetLiveEntitiesQuery(orgId, 'policy', strings(body['policyIds']))),
    // The built-in enqueue actions are no catalog entities: never waited for.
    queries.execute(
      new GetLiveEntitiesQuery(
        orgId,
        'action',
        strings(body['actionId']).filter((id) => !BUILTIN_IDS.has(id)),
      ),
    ),
  ]);
  return {
    itemTypes: new Map(types.map((t) => [t.id, t] as const)),
    policies: new Map(policies.map((p) => [p.id, p] as const)),
    actions: executableActions(actions),
  };
}
