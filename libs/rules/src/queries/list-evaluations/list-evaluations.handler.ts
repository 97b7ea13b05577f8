import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '../../../../readstore/src/index.js';
import { READ_STORE } from '../../../../platform/src/index.js';
import { ITEM_EVALUATIONS, type ItemEvaluationDoc } from '../../projections/item-evaluations.projection.js';
import { ListEvaluationsQuery } from './list-evaluations.query.js';

@QueryHandler(ListEvaluationsQuery)
export class ListEvaluationsHandler implements IQueryHandler<ListEvaluationsQuery> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  execute(query: ListEvaluationsQuery): Promise<ItemEvaluationDoc[]> {
    return this.readStore.find<ItemEvaluationDoc>(
      ITEM_EVALUATIONS,
      { orgId: query.orgId, typeId: query.typeId, itemId: query.itemId },
      { sort: [{ field: 'version', direction: 'desc' }, { field: 'evaluatedAt', direction: 'desc' }], limit: 100 },
    );
  }
}
