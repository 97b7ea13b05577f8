import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { UserScoresReader } from '../../standing/user-scores.reader.js';
import { GetUserScoreQuery } from './get-user-score.query.js';

/** The route's question; other modules read the same score through the USER_SCORE port. */
@QueryHandler(GetUserScoreQuery)
export class GetUserScoreHandler implements IQueryHandler<GetUserScoreQuery> {
  constructor(private readonly scores: UserScoresReader) {}

  execute({ orgId, user }: GetUserScoreQuery): Promise<number> {
    return this.scores.score(orgId, user);
  }
}
