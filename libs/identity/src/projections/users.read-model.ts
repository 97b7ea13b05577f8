import type { Role } from '../domain/access.js';
import type { UserState } from '../domain/user.events.js';

export const USERS = 'identity_users';
export const USERS_BY_EMAIL = 'identity_user_emails';
export const CONSOLE_SESSIONS = 'identity_console_sessions';

export type UserDoc = {
  id: string;
  orgId: string;
  /** Null once the user's personal data was erased. */
  email: string | null;
  emailDigest: string;
  roles: Role[];
  state: UserState;
  hasPassword: boolean;
  createdAt: string;
};
export type UserEmailDoc = { userId: string; orgId: string };
/** Finds a session's user; whether the session is still open is the user aggregate's to say. */
export type ConsoleSessionDoc = { sessionId: string; userId: string; orgId: string; expiresAt: string };

/**
 * When each console session was last used, by session id (SessionActivity): operational data the
 * session check writes, not a projection (a rebuild keeps it). No personal data.
 */
export const CONSOLE_SESSION_ACTIVITY = 'identity_console_session_activity';
export type ConsoleSessionActivityDoc = { sessionId: string; lastUsedAt: string };
