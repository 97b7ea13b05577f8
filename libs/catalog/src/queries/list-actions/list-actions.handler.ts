import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type ActionKind, BUILTIN_ACTION_IDS } from '../../domain/catalog.model.js';
import { CatalogReader } from '../catalog-reader.js';
import { type ActionType, type ActionView, ListActionsQuery } from './list-actions.query.js';

const ACTION_TYPE: Record<ActionKind, ActionType> = {
  CUSTOMER_DEFINED_ACTION: 'CUSTOM_ACTION',
  ENQUEUE_TO_MRT: 'ENQUEUE_TO_MRT',
  ENQUEUE_TO_CHILD_SAFETY: 'ENQUEUE_TO_CHILD_SAFETY',
};

/** The organization's custom actions and the two built-ins that always exist (docs/configuration-as-code.md, "Defaults and the actions list"). */
@QueryHandler(ListActionsQuery)
export class ListActionsHandler implements IQueryHandler<ListActionsQuery> {
  constructor(private readonly catalog: CatalogReader) {}

  async execute(query: ListActionsQuery): Promise<ActionView[]> {
    const [actions, itemTypes] = await Promise.all([this.catalog.liveEntities(query.orgId, 'action'), this.catalog.liveEntities(query.orgId, 'itemType')]);
    const allTypes = itemTypes.map((t) => t.id);
    const builtin = (id: string, name: string, description: string, actionType: ActionType): ActionView => ({
      id,
      name,
      description,
      actionType,
      applyUserStrikes: false,
      penalty: 'NONE',
      itemTypeIds: allTypes,
      parameters: [],
    });
    return [
      builtin(BUILTIN_ACTION_IDS.mrt, 'Enqueue to manual review', 'Adds the item to a manual review queue', 'ENQUEUE_TO_MRT'),
      builtin(BUILTIN_ACTION_IDS.childSafety, 'Enqueue to child safety', 'Routes the item to the child-safety review queue', 'ENQUEUE_TO_CHILD_SAFETY'),
      ...actions.map((a) => ({
        id: a.id,
        name: a.name,
        description: a.description,
        actionType: ACTION_TYPE[a.kind],
        applyUserStrikes: a.applyUserStrikes,
        penalty: a.penalty,
        itemTypeIds: a.itemTypeIds,
        parameters: a.parameters,
      })),
    ];
  }
}
