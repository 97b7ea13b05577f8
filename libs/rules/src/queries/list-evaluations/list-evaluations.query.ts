import { Query } from '@nestjs/cqrs';
import type { Evaluation } from '../../domain/evaluation.events.js';

export type EvaluationView = Evaluation & { evaluatedAt: string };

export class ListEvaluationsQuery extends Query<EvaluationView[]> {
  constructor(
    readonly orgId: string,
    readonly typeId: string,
    readonly itemId: string,
  ) {
    super();
  }
}
