import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { idProblem, notFound } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { gdprDeletionDecider } from '../../domain/gdpr-deletion.decider.js';
import { gdprDeletionStream } from '../../domain/gdpr-deletion.streams.js';
import { GetGdprDeletionQuery, type GdprDeletionView } from './get-gdpr-deletion.query.js';

const NOTHING_YET = { dataKeys: 0, items: 0, reports: 0, appeals: 0, reviewJobsClosed: 0, consoleAccounts: 0 };

@QueryHandler(GetGdprDeletionQuery)
export class GetGdprDeletionHandler implements IQueryHandler<GetGdprDeletionQuery> {
  constructor(private readonly aggregates: AggregateStore) {}

  async execute({ orgId, requestId }: GetGdprDeletionQuery): Promise<GdprDeletionView> {
    const unknown = () => notFound(`no GDPR deletion ${requestId}`);
    // An id no request could have is unknown, like any other; another organization's id names
    // an empty stream of this organization.
    if (idProblem(requestId) !== undefined) throw unknown();
    const state = await this.aggregates.state(gdprDeletionStream(orgId, requestId), gdprDeletionDecider);
    if (state.status === 'NONE' || !state.requestId || !state.requestedAt) throw unknown();
    return {
      requestId: state.requestId,
      state: state.status,
      requestedAt: state.requestedAt,
      completedAt: state.completedAt,
      erased: { ...NOTHING_YET, ...state.erased },
    };
  }
}
