import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { UserStrikeHistory } from '../../standing/user-standing.ports.js';
import { UserStrikesReader } from '../../standing/user-strikes.reader.js';
import { GetUserStrikesQuery } from './get-user-strikes.query.js';

/** Asked on the QueryBus by modules that only read a user's strikes (the audit's Investigate); the review module uses the USER_STRIKES port. */
@QueryHandler(GetUserStrikesQuery)
export class GetUserStrikesHandler implements IQueryHandler<GetUserStrikesQuery> {
  constructor(private readonly strikes: UserStrikesReader) {}

  execute({ orgId, user, limit }: GetUserStrikesQuery): Promise<UserStrikeHistory | null> {
    return this.strikes.history(orgId, user, limit);
  }
}
