import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '#warden/readstore';
import type { EventStore } from '#warden/eventstore';
import { recordedAs } from '#warden/kernel';
import { EVENT_STORE, READ_STORE } from '#warden/storage';
import { decodeEvaluation, type ItemEvaluated } from '../../domain/evaluation.events.js';
import { ITEM_EVALUATIONS, type ItemEvaluationDoc } from '../../projections/item-evaluations.projection.js';
import { type EvaluationView, ListEvaluationsQuery } from './list-evaluations.query.js';

@QueryHandler(ListEvaluationsQuery)
export class ListEvaluationsHandler implements IQueryHandler<ListEvaluationsQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async execute(query: ListEvaluationsQuery): Promise<EvaluationView[]> {
    const docs = await this.readStore.find<ItemEvaluationDoc>(
      ITEM_EVALUATIONS,
      { orgId: query.orgId, typeId: query.typeId, itemId: query.itemId, ...(query.version === undefined ? {} : { version: query.version }) },
      {
        sort: [
          { field: 'version', direction: 'desc' },
          { field: 'evaluatedAt', direction: 'desc' },
        ],
        limit: 100,
      },
    );
    const views = await Promise.all(
      docs.map(async (doc) => {
        const [first] = await this.events.readStream(doc.stream, { maxCount: 1 });
        const event = first && recordedAs<ItemEvaluated>(first, 'ItemEvaluated');
        return event ? { ...decodeEvaluation(event.data), evaluatedAt: doc.evaluatedAt } : undefined;
      }),
    );
    return views.filter((v): v is EvaluationView => v !== undefined);
  }
}
