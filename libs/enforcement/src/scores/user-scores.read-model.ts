import { deterministicId } from '#warden/kernel';
import type { ItemActions, UserRef, UserScoreFacts } from '../domain/user-score.js';

/**
 * v2: a user's actioned items counted by what was done to them, and each item's actions in a
 * document of its own, so that neither grows with the user's history (the first kept every
 * actioned item in the user's document: a flooding user's grew by one item per action).
 */
export const USER_SCORES_PROJECTION = 'user-scores-v2';
export const USER_SCORES = 'user_score_totals';
export const USER_SCORE_ITEMS = 'user_score_items';
/**
 * Items whose first version was fetched from the customer (docs/partial-items.md), not submitted:
 * counted as their creator's submission at their first submitted version, then dropped.
 */
export const USER_SCORE_FETCHED_ITEMS = 'user_score_fetched_items';

/** One document per organization and user (MongoDB in production, through the ReadStore port). */
export interface UserScoreDoc extends UserScoreFacts {
  orgId: string;
  user: UserRef;
}

/** One document per actioned item of a user. */
export interface UserScoreItemDoc extends ItemActions {
  orgId: string;
  user: UserRef;
  item: UserRef;
}

/** An item known so far only from a fetch: its first submitted version counts as a submission. */
export interface UserScoreFetchedItemDoc {
  orgId: string;
  item: UserRef;
}

/** Hashed, so no customer id can make two organizations' users, or a user and a type, share a document. */
export const userScoreDocId = (orgId: string, user: UserRef) => deterministicId('user-score', orgId, user.typeId, user.id);
export const userScoreItemDocId = (orgId: string, user: UserRef, item: UserRef) =>
  deterministicId('user-score-item', orgId, user.typeId, user.id, item.typeId, item.id);
export const userScoreFetchedItemDocId = (orgId: string, item: UserRef) => deterministicId('user-score-fetched-item', orgId, item.typeId, item.id);
