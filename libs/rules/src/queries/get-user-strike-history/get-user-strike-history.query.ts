import { Query } from '@nestjs/cqrs';

/** One application of strikes to a user: an action on one of their items. */
export interface StrikeEntry {
  strikes: number;
  /** The windowed count once these strikes were in (what the action's callback reported). */
  countAfter: number;
  actionId: string;
  policyIds: string[];
  item: { id: string; typeId: string };
  appliedAt: string;
  /** Still within the strike window now. */
  counting: boolean;
}

export interface UserStrikeHistory {
  /** The live count within the strike window (as USER_STRIKE_COUNT reads it). */
  count: number;
  /** The strike window (`strikes.windowDays`); null: strikes never expire. */
  windowDays: number | null;
  /** Newest first, at most the query's `limit`. */
  strikes: StrikeEntry[];
}

/**
 * A user's strikes as their `user_strikes` stream records them, answered by the enforcement
 * module (declared here, as GetUserStrikeCountQuery is, so that modules that show strikes need not
 * depend on enforcement). Null: the user cannot be named (no valid identifier).
 */
export class GetUserStrikeHistoryQuery extends Query<UserStrikeHistory | null> {
  constructor(
    readonly orgId: string,
    readonly user: { readonly id: string; readonly typeId: string },
    readonly limit = 100,
  ) {
    super();
  }
}
