import type { Decider, Json } from '#warden/kernel';
import { type User, userDecider } from './user.decider.js';
import type { UserEvent } from './user.events.js';

/**
 * What a console request's session check needs of its user (console-authenticator.ts): state,
 * roles, open sessions. Nothing personal (no email, no password hash, no invitation), so, unlike
 * the user's whole state, it is cached for good and snapshotted: each request reads only the
 * user's events since, where the whole state, holding the email, was read again from the first
 * event every minute (its cache time: docs/architecture.md, "Write side"). A user's stream grows
 * by two events a sign-in: an account signed in every five minutes by a script holds 200,000 in
 * a year, 0.9 s to read.
 */
export type UserAccess = Pick<User, 'userId' | 'orgId' | 'roles' | 'state' | 'sessions'>;

const accessOf = (user: User | null): UserAccess | null =>
  user === null ? null : { userId: user.userId, orgId: user.orgId, roles: user.roles, state: user.state, sessions: user.sessions };

/** The user's whole state as the decider folds it, its personal and secret fields left empty. */
const asUser = (access: UserAccess | null): User | null =>
  access === null ? null : { ...access, email: null, emailDigest: '', passwordHash: null, invitation: null };

/** The user decider's fold, keeping what UserAccess holds: one evolve for both, so they cannot drift. */
export const userAccessFolding: Pick<Decider<never, UserAccess | null, UserEvent>, 'eventTypes' | 'initialState' | 'evolve' | 'snapshot'> = {
  eventTypes: userDecider.eventTypes,
  initialState: null,
  evolve: (state, event) => accessOf(userDecider.evolve(asUser(state), event)),
  snapshot: {
    name: 'user_access',
    version: 1,
    encode: (state) => state as unknown as Json,
    decode: (json) => json as unknown as UserAccess | null,
  },
};
