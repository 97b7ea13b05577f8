import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { InvestigationReader } from '../../investigate/investigation-reader.js';
import { FindShownStrikesQuery, type ListedStrike } from './find-shown-strikes.query.js';

/** The job view's appeal part asks it for the appellant's strikes (docs/review.md, "The job view"). */
@QueryHandler(FindShownStrikesQuery)
export class FindShownStrikesHandler implements IQueryHandler<FindShownStrikesQuery> {
  constructor(private readonly reader: InvestigationReader) {}

  execute({ orgId, user, entries, permissions }: FindShownStrikesQuery<ListedStrike>) {
    return this.reader.shownStrikes(orgId, user, entries, permissions);
  }
}
