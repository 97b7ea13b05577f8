import type { Projection } from '#warden/eventstore';
import { parseStreamName } from '#warden/kernel';

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
  needsPersonalData: false,
  ownThread: true,
  // An item's evaluations newest version first (GET …/evaluations, the job view's per version):
  // read in index order and stopped at the page, where a mass-reported item has a version per report.
  indexes: [{ collection: ITEM_EVALUATIONS, fields: ['orgId', 'typeId', 'itemId', 'version', 'evaluatedAt'] }],
  retiredIndexes: [{ collection: ITEM_EVALUATIONS, fields: ['orgId', 'typeId', 'itemId'] }],
  apply(event, ctx) {
    // Everything the index needs is in the stream name: the evaluation itself (kilobytes of
    // condition records) is not even parsed here.
    const [orgId, typeId, itemId, version, environment] = parseStreamName(event.streamName).idParts as [string, string, string, string, string];
    const doc: ItemEvaluationDoc = {
      orgId,
      typeId,
      itemId,
      version: Number(version),
      environment: environment.split(':')[0]!,
      evaluatedAt: event.metadata.occurredAt,
      stream: event.streamName,
    };
    ctx.put(ITEM_EVALUATIONS, event.streamName, doc as never);
  },
};
