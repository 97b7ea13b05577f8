import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { idProblem, invalidField, notFound } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { bulkActionView, type BulkActionView } from '../../bulk/bulk-action-view.js';
import { bulkActionDecider } from '../../domain/bulk-action.decider.js';
import { bulkActionStream } from '../../domain/bulk-action.streams.js';
import { GetBulkActionQuery } from './get-bulk-action.query.js';

@QueryHandler(GetBulkActionQuery)
export class GetBulkActionHandler implements IQueryHandler<GetBulkActionQuery> {
  constructor(private readonly aggregates: AggregateStore) {}

  async execute(query: GetBulkActionQuery): Promise<BulkActionView> {
    const issue = idProblem(query.bulkActionId);
    if (issue) throw invalidField('/bulkActionId', issue);
    const view = bulkActionView(await this.aggregates.state(bulkActionStream(query.orgId, query.bulkActionId), bulkActionDecider));
    if (!view) throw notFound('No such bulk action');
    return view;
  }
}
