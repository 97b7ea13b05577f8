import type { Projection } from '../../../eventstore/src/index.js';
import type { ItemEvaluated } from '../domain/evaluation.events.js';

export const ITEM_EVALUATIONS = 'rules_item_evaluations';

export type ItemEvaluationDoc = ItemEvaluated['data'] & {
  orgId: string;
  typeId: string;
  itemId: string;
  evaluatedAt: string;
};

/** Every evaluation of every item version, for GET /api/v1/items/{typeId}/{id}/evaluations. */
export const itemEvaluationsProjection: Projection = {
  name: 'item-evaluations',
  collections: [ITEM_EVALUATIONS],
  eventTypes: ['ItemEvaluated'],
  apply(event, ctx) {
    const data = event.data as unknown as ItemEvaluated['data'];
    const orgId = event.metadata.orgId;
    const doc: ItemEvaluationDoc = {
      ...data,
      orgId,
      typeId: data.item.typeId,
      itemId: data.item.id,
      evaluatedAt: event.metadata.occurredAt,
    };
    ctx.put(ITEM_EVALUATIONS, `${orgId}:${data.item.typeId}:${data.item.id}:${data.version}:${data.environment}`, doc as never);
  },
};
