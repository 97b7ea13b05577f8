import { Query } from '@nestjs/cqrs';
import type { ItemEvaluated } from '../../domain/evaluation.events.js';

export type EvaluationView = ItemEvaluated['data'] & { evaluatedAt: string };

export class ListEvaluationsQuery extends Query<EvaluationView[]> {
  constructor(
    readonly orgId: string,
    readonly typeId: string,
    readonly itemId: string,
  ) {
    super();
  }
}
