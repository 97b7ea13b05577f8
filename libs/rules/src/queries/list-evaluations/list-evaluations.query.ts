import { Query } from '@nestjs/cqrs';
import type { Evaluation } from '../../domain/evaluation.events.js';

export type EvaluationView = Evaluation & { evaluatedAt: string };

export class ListEvaluationsQuery extends Query<EvaluationView[]> {
  constructor(
    readonly orgId: string,
    readonly typeId: string,
    readonly itemId: string,
    /** Only this item version's evaluations (the job view); every version when left out. */
    readonly version?: number,
  ) {
    super();
  }
}
