import type { Projection } from '../../../eventstore/src/index.js';
import type { ItemEvaluated } from '../domain/evaluation.events.js';

export const ITEM_EVALUATIONS = 'rules_item_evaluations';

/** An index entry: the details stay in the log (the evaluation stream), read on request. */
export type ItemEvaluationDoc = {
  orgId: string;
  typeId: string;
  itemId: string;
  version: number;
  environment: string;
  evaluatedAt: string;
  stream: string;
};

/** Where each item version's evaluations are, for GET /api/v1/items/{typeId}/{id}/evaluations. */
export const itemEvaluationsProjection: Projection = {
  name: 'item-evaluations',
  collections: [ITEM_EVALUATIONS],
  eventTypes: ['ItemEvaluated'],
  apply(event, ctx) {
    const data = event.data as unknown as ItemEvaluated['data'];
    const orgId = event.metadata.orgId;
    const doc: ItemEvaluationDoc = {
      orgId,
      typeId: data.item.typeId,
      itemId: data.item.id,
      version: data.version,
      environment: data.environment,
      evaluatedAt: event.metadata.occurredAt,
      stream: event.streamName,
    };
    ctx.put(ITEM_EVALUATIONS, `${orgId}:${data.item.typeId}:${data.item.id}:${data.version}:${data.environment}`, doc as never);
  },
};
