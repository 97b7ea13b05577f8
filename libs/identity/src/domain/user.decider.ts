import { conflict, type Decider, invalidField, isRole, notFound, type Role, ROLES, unauthorized } from '#warden/kernel';
import type { ConsoleSessionClosed, SessionMethod, UserEmailEvent, UserEvent, UserState } from './user.events.js';

export type UserCommand =
  | {
      type: 'CreateUser';
      userId: string;
      orgId: string;
      email: string;
      emailDigest: string;
      roles: readonly string[];
      state: 'active' | 'invited';
      passwordHash: string | null;
    }
  | { type: 'InviteUser'; orgId: string; tokenHash: string; expiresAt: string }
  | { type: 'AcceptInvitation'; orgId: string; tokenHash: string; passwordHash: string; now: string }
  | { type: 'SetUserPassword'; orgId: string; passwordHash: string }
  | { type: 'RehashPassword'; orgId: string; previousHash: string; passwordHash: string }
  | { type: 'ChangeUserRoles'; orgId: string; roles: readonly string[] }
  | { type: 'DisableUser'; orgId: string }
  | { type: 'EnableUser'; orgId: string }
  | {
      type: 'OpenConsoleSession';
      orgId: string;
      sessionId: string;
      tokenHash: string;
      csrfTokenHash: string;
      method: SessionMethod;
      expiresAt: string;
      /** When it is opened (ISO time): sessions that expired by then are closed with it. */
      openedAt: string;
    }
  | { type: 'CloseConsoleSession'; orgId: string; sessionId: string; reason: 'logout' | 'revoked' };

export interface OpenSession {
  readonly tokenHash: string;
  readonly csrfTokenHash: string;
  readonly method: SessionMethod;
  readonly expiresAt: string;
}

export interface User {
  readonly userId: string;
  readonly orgId: string;
  readonly email: string | null;
  readonly emailDigest: string;
  readonly roles: readonly Role[];
  readonly state: UserState;
  readonly passwordHash: string | null;
  readonly invitation: { readonly tokenHash: string; readonly expiresAt: string } | null;
  /** Open sessions by id; closed ones are removed (expired ones stay until closed, and fail their expiry check). */
  readonly sessions: Readonly<Record<string, OpenSession>>;
}

export type UserAggregateState = User | null;

/** Known roles, each once, in the table's order; at least one (pointer /roles). */
export function checkedRoles(roles: readonly string[]): Role[] {
  const unknown = roles.find((r) => !isRole(r));
  if (unknown !== undefined) throw invalidField('/roles', `Unknown role ${unknown}; roles are ${ROLES.join(', ')}`);
  if (roles.length === 0) throw invalidField('/roles', 'A user has at least one role');
  return ROLES.filter((r) => roles.includes(r));
}

function existing(state: UserAggregateState, orgId: string): User {
  if (state === null || state.orgId !== orgId) throw notFound('No such user');
  return state;
}

/** A ConsoleSessionClosed for every open session of the user. */
function closeAll(user: User, reason: ConsoleSessionClosed['data']['reason']): ConsoleSessionClosed[] {
  return Object.entries(user.sessions).map(([sessionId, s]) => ({
    type: 'ConsoleSessionClosed',
    data: { userId: user.userId, sessionId, tokenHash: s.tokenHash, reason },
  }));
}

export const userDecider: Decider<UserCommand, UserAggregateState, UserEvent> = {
  eventTypes: {
    UserCreated: true,
    UserInvited: true,
    UserInvitationAccepted: true,
    UserPasswordSet: true,
    UserPasswordRehashed: true,
    UserRolesChanged: true,
    UserDisabled: true,
    UserEnabled: true,
    ConsoleSessionOpened: true,
    ConsoleSessionClosed: true,
  },
  initialState: null,
  decide(command, state) {
    if (command.type === 'CreateUser') {
      if (state !== null) throw conflict(`User ${command.userId} already exists`);
      if (command.state === 'invited' && command.passwordHash !== null) throw invalidField('/password', 'An invited user sets its own password');
      const { type: _type, roles, ...data } = command;
      return [{ type: 'UserCreated', data: { ...data, roles: checkedRoles(roles) } }];
    }
    const user = existing(state, command.orgId);
    const userId = user.userId;
    switch (command.type) {
      case 'InviteUser':
        if (user.state !== 'invited') throw conflict('The user has already accepted an invitation or has a password');
        return [{ type: 'UserInvited', data: { userId, tokenHash: command.tokenHash, expiresAt: command.expiresAt } }];
      case 'AcceptInvitation': {
        const invitation = user.invitation;
        if (user.state !== 'invited' || invitation === null || invitation.tokenHash !== command.tokenHash || invitation.expiresAt <= command.now) {
          throw unauthorized('The invitation is unknown, already used or expired');
        }
        return [{ type: 'UserInvitationAccepted', data: { userId, passwordHash: command.passwordHash } }];
      }
      case 'SetUserPassword':
        if (user.state === 'disabled') throw conflict('The user is disabled; enable it first');
        // A new password is how an operator locks out whoever learned the old one: its sessions end.
        return [...closeAll(user, 'password-changed'), { type: 'UserPasswordSet', data: { userId, passwordHash: command.passwordHash } }];
      case 'RehashPassword':
        // Only the hash the sign-in verified: a password set meanwhile is not overwritten.
        if (user.passwordHash !== command.previousHash) return [];
        return [{ type: 'UserPasswordRehashed', data: { userId, passwordHash: command.passwordHash } }];
      case 'ChangeUserRoles': {
        const roles = checkedRoles(command.roles);
        if (roles.length === user.roles.length && roles.every((r) => user.roles.includes(r))) return [];
        return [{ type: 'UserRolesChanged', data: { userId, previousRoles: [...user.roles], roles } }];
      }
      case 'DisableUser':
        if (user.state === 'disabled') return [];
        // Its sessions end with it: enabling the user later must not bring them back.
        return [...closeAll(user, 'revoked'), { type: 'UserDisabled', data: { userId } }];
      case 'EnableUser':
        if (user.state !== 'disabled') return [];
        return [{ type: 'UserEnabled', data: { userId, state: user.passwordHash === null && user.invitation !== null ? 'invited' : 'active' } }];
      case 'OpenConsoleSession': {
        if (user.state !== 'active') throw unauthorized('The user cannot sign in');
        const { type: _type, orgId: _orgId, openedAt, ...session } = command;
        // Sessions that simply ran out are closed here, so neither the aggregate every check
        // reads nor the sessions read model keeps them for good.
        const expired = Object.entries(user.sessions)
          .filter(([, s]) => s.expiresAt <= openedAt)
          .map(([sessionId, s]): ConsoleSessionClosed => ({
            type: 'ConsoleSessionClosed',
            data: { userId, sessionId, tokenHash: s.tokenHash, reason: 'expired' },
          }));
        return [...expired, { type: 'ConsoleSessionOpened', data: { userId, ...session } }];
      }
      case 'CloseConsoleSession': {
        const session = user.sessions[command.sessionId];
        if (!session) return [];
        return [{ type: 'ConsoleSessionClosed', data: { userId, sessionId: command.sessionId, tokenHash: session.tokenHash, reason: command.reason } }];
      }
    }
  },
  evolve(state, event) {
    if (event.type === 'UserCreated') {
      const d = event.data;
      return {
        userId: d.userId,
        orgId: d.orgId,
        email: d.email,
        emailDigest: d.emailDigest,
        roles: d.roles,
        state: d.state,
        passwordHash: d.passwordHash,
        invitation: null,
        sessions: {},
      };
    }
    if (state === null) return state;
    switch (event.type) {
      case 'UserInvited':
        return { ...state, invitation: { tokenHash: event.data.tokenHash, expiresAt: event.data.expiresAt } };
      case 'UserInvitationAccepted':
      case 'UserPasswordSet':
        // A password makes an invited user active; an invitation is single-use.
        return { ...state, passwordHash: event.data.passwordHash, state: state.state === 'invited' ? 'active' : state.state, invitation: null };
      case 'UserPasswordRehashed':
        return { ...state, passwordHash: event.data.passwordHash };
      case 'UserRolesChanged':
        return { ...state, roles: event.data.roles };
      case 'UserDisabled':
        return { ...state, state: 'disabled' };
      case 'UserEnabled':
        return { ...state, state: event.data.state };
      case 'ConsoleSessionOpened': {
        const { tokenHash, csrfTokenHash, method, expiresAt } = event.data;
        return { ...state, sessions: { ...state.sessions, [event.data.sessionId]: { tokenHash, csrfTokenHash, method, expiresAt } } };
      }
      case 'ConsoleSessionClosed': {
        const { [event.data.sessionId]: _closed, ...sessions } = state.sessions;
        return { ...state, sessions };
      }
    }
  },
};

export type UserEmailCommand = { type: 'ClaimUserEmail'; emailDigest: string; userId: string; orgId: string };

/**
 * One stream per normalized address, claimed once with an expected revision of "no stream":
 * of two concurrent creations with one address, one append fails and its user is never written.
 */
export const userEmailDecider: Decider<UserEmailCommand, { claimedBy: string | null }, UserEmailEvent> = {
  eventTypes: { UserEmailClaimed: true },
  initialState: { claimedBy: null },
  decide(command, state) {
    if (state.claimedBy === command.userId) return [];
    if (state.claimedBy !== null) throw invalidField('/email', 'A user with this email address already exists');
    const { type: _type, ...data } = command;
    return [{ type: 'UserEmailClaimed', data }];
  },
  evolve(_state, event) {
    return { claimedBy: event.data.userId };
  },
};
