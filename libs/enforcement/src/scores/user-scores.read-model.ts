import { deterministicId } from '#warden/kernel';
import type { UserRef, UserScoreFacts } from '../domain/user-score.js';

export const USER_SCORES_PROJECTION = 'user-scores';
export const USER_SCORES = 'user_scores';

/** One document per organization and user (MongoDB in production, through the ReadStore port). */
export interface UserScoreDoc extends UserScoreFacts {
  orgId: string;
  user: UserRef;
}

/** Hashed, so no customer id can make two organizations' users, or a user and a type, share a document. */
export const userScoreDocId = (orgId: string, user: UserRef) => deterministicId('user-score', orgId, user.typeId, user.id);
