import type { ItemIdentifier } from '#warden/ingestion';

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
  /** Newest first, at most the `limit` asked for. */
  strikes: StrikeEntry[];
}

/**
 * A user's strikes, as the enforcement module counts them in the user's `user_strikes` stream:
 * a port enforcement owns and provides (USER_STRIKES), called in process by the review module
 * (the job view), which takes it optionally and says what it does without it
 * (docs/architecture.md, "Ports"). An action callback's `userStrikeCount` is not asked for: this
 * module hands it to the callbacks module with the action (ACTION_DELIVERIES).
 */
export interface UserStrikes {
  /**
   * The user's strikes within the strike window now, read from the user's stream (not a read
   * model, so never behind an action already applied). Null: the user cannot be named.
   */
  count(orgId: string, user: ItemIdentifier): Promise<number | null>;
  /** The count, the window and the newest `limit` applications (100 by default). Null: the user cannot be named. */
  history(orgId: string, user: ItemIdentifier, limit?: number): Promise<UserStrikeHistory | null>;
}

export const USER_STRIKES = Symbol('UserStrikes');

/** A user's live score (USER_SCORE), as GET /api/v1/user_scores answers it; the review module's job view shows it. */
export interface UserScore {
  /** 1 (worst) to 5 (best); 5 for a user Warden has never seen. */
  score(orgId: string, user: ItemIdentifier): Promise<number>;
}

export const USER_SCORE = Symbol('UserScore');
