import { Query } from '@nestjs/cqrs';
import type { ItemEvaluationDoc } from '../../projections/item-evaluations.projection.js';

export class ListEvaluationsQuery extends Query<ItemEvaluationDoc[]> {
  constructor(
    readonly orgId: string,
    readonly typeId: string,
    readonly itemId: string,
  ) {
    super();
  }
}
