import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { GetUserStrikeCountQuery } from '#warden/rules';
import { StrikeApplier } from '../../strikes/strike-applier.js';

/**
 * Read from the user's stream, not a read model: the count after an action is decided there, and
 * the live count a rule reads is then never behind an action already applied.
 */
@QueryHandler(GetUserStrikeCountQuery)
export class GetUserStrikeCountHandler implements IQueryHandler<GetUserStrikeCountQuery> {
  constructor(private readonly strikes: StrikeApplier) {}

  execute(query: GetUserStrikeCountQuery): Promise<number | null> {
    return this.strikes.liveCount(query.orgId, query.user);
  }
}
