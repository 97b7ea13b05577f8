import { Query } from '@nestjs/cqrs';

/**
 * A user's live strike count within the strike window (the USER_STRIKE_COUNT signal, the job
 * view), answered by the enforcement module (declared here so that enforcement depends on the
 * rules engine, not the other way round). Null: the user cannot be named (no valid identifier).
 */
export class GetUserStrikeCountQuery extends Query<number | null> {
  constructor(
    readonly orgId: string,
    readonly user: { readonly id: string; readonly typeId: string },
  ) {
    super();
  }
}
