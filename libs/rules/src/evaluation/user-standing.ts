import type { ItemIdentifier } from '#warden/ingestion';

/**
 * What the USER_STRIKE_COUNT and USER_SCORE signals read of a user: the enforcement module counts
 * strikes and scores users, and provides this port (USER_STANDING) as an extension of the rules
 * engine (rules-extension.ts). Declared here, by the engine that needs it, so that enforcement
 * depends on the rules engine and not the other way round. Optional: a composition without it
 * leaves those signals' leaves unknown ("not provided by this deployment"); docs/architecture.md,
 * "Ports".
 */
export interface UserStanding {
  /** The user's strikes within the strike window now. Null: the user cannot be named (no valid identifier). */
  strikeCount(orgId: string, user: ItemIdentifier): Promise<number | null>;
  /** The user's live score, 1 (worst) to 5 (best); 5 for a user Warden has never seen. */
  score(orgId: string, user: ItemIdentifier): Promise<number>;
}

export const USER_STANDING = Symbol('UserStanding');
