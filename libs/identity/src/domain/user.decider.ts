import { conflict, type Decider, invalidField, notFound, unauthorized } from '#warden/kernel';
import { isRole, type Role, ROLES } from './access.js';
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
      /** When the user proved who they are, if earlier than the opening (a SAML assertion's AuthnInstant). */
      authenticatedAt?: string;
    }
  | { type: 'CloseConsoleSession'; orgId: string; sessionId: string; reason: 'logout' | 'revoked' };

export interface OpenSession {
  readonly tokenHash: string;
  readonly csrfTokenHash: string;
  readonly method: SessionMethod;
  readonly expiresAt: string;
  /** When the user proved who they are, where earlier than the opening; absent: at the opening. */
  readonly authenticatedAt?: string;
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

/**
 * The invited user the token opens: still invited, the token the latest one, not expired; else
 * the one 401 for every such case. The acceptance checks it before anything else is written
 * (the address is claimed before the user's own stream is), and `decide` again on the stream.
 */
export function openInvitation(state: UserAggregateState, orgId: string, tokenHash: string, now: string): User {
  const invitation = state !== null && state.orgId === orgId ? state.invitation : null;
  if (state === null || state.state !== 'invited' || invitation === null || invitation.tokenHash !== tokenHash || invitation.expiresAt <= now) {
    throw unauthorized('The invitation is unknown, already used or expired');
  }
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
      case 'AcceptInvitation':
        openInvitation(user, command.orgId, command.tokenHash, command.now);
        return [{ type: 'UserInvitationAccepted', data: { userId, passwordHash: command.passwordHash } }];
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
        const { tokenHash, csrfTokenHash, method, expiresAt, authenticatedAt } = event.data;
        const session: OpenSession = { tokenHash, csrfTokenHash, method, expiresAt, ...(authenticatedAt === undefined ? {} : { authenticatedAt }) };
        return { ...state, sessions: { ...state.sessions, [event.data.sessionId]: session } };
      }
      case 'ConsoleSessionClosed': {
        const { [event.data.sessionId]: _closed, ...sessions } = state.sessions;
        return { ...state, sessions };
      }
    }
  },
};

type EmailOwner = { readonly userId: string; readonly orgId: string };

export type UserEmailCommand =
  /** A user who can sign in (or is created to): the address is the user's, or the answer is 400 on /email. */
  | ({ type: 'ClaimUserEmail'; emailDigest: string } & EmailOwner)
  /** An invited user is created: it reserves a free address, or waits as its organization's invitee. */
  | ({ type: 'InviteToUserEmail'; emailDigest: string } & EmailOwner)
  /** An invited user accepts: it claims the address, taking another organization's reservation; 409 against a claim. */
  | ({ type: 'AcceptUserEmail'; emailDigest: string } & EmailOwner);

export interface UserEmailState {
  /** Who has the address; `reserved` while that user is only invited (UserEmailReserved). */
  readonly holder: (EmailOwner & { readonly reserved: boolean }) | null;
  /** Other organizations' invited users of the address, one per organization. */
  readonly invitees: Readonly<Record<string, string>>;
}

/** The id of the organization's user recorded for the address: its holder, or its invitee. */
export function organizationUserOf(state: UserEmailState, orgId: string): string | undefined {
  return state.holder?.orgId === orgId ? state.holder.userId : state.invitees[orgId];
}

/** The message of the one refusal an invitee can meet: said to the person accepting, never to the inviting admin. */
export const ADDRESS_TAKEN_ON_ACCEPTANCE =
  'This email address already has a Warden account in another organization, and an address belongs to one organization only: ' +
  'sign in with that account, or ask to be invited with another address';

/**
 * One stream per normalized address, first written with an expected revision of "no stream": of
 * two concurrent creations with one address, one append fails and its user is never written.
 *
 * Which organization an address belongs to is settled by its user, not by the admin who invites
 * it: an invitation of an address another organization holds is recorded like any other (so the
 * answer does not tell the inviting admin the address exists elsewhere), and the conflict is
 * settled at acceptance: against an account the invitee is refused; against another organization's
 * invitation that was never accepted, the first to accept takes the address.
 */
export const userEmailDecider: Decider<UserEmailCommand, UserEmailState, UserEmailEvent> = {
  eventTypes: { UserEmailClaimed: true, UserEmailReserved: true, UserEmailInviteeRecorded: true },
  initialState: { holder: null, invitees: {} },
  decide(command, state) {
    const { type: _type, ...data } = command;
    const holder = state.holder;
    const holds = holder !== null && holder.userId === command.userId;
    switch (command.type) {
      case 'ClaimUserEmail':
        if (holds && !holder.reserved) return [];
        if (holder !== null && !holds) throw invalidField('/email', 'A user with this email address already exists');
        return [{ type: 'UserEmailClaimed', data }];
      case 'InviteToUserEmail': {
        if (holds || state.invitees[command.orgId] === command.userId) return [];
        if (holder === null) return [{ type: 'UserEmailReserved', data }];
        // The inviting organization's own user is renewed, never invited twice (InviteUserHandler finds it first).
        if (holder.orgId === command.orgId || state.invitees[command.orgId] !== undefined) {
          throw conflict('The organization already has a user with this email address');
        }
        return [{ type: 'UserEmailInviteeRecorded', data }];
      }
      case 'AcceptUserEmail': {
        if (holds && !holder.reserved) return [];
        if (holder === null || holds) return [{ type: 'UserEmailClaimed', data }];
        if (state.invitees[command.orgId] !== command.userId) throw conflict('The user is not invited with this email address');
        if (!holder.reserved) throw conflict(ADDRESS_TAKEN_ON_ACCEPTANCE);
        // The first to accept takes the address; the reserving user waits as its organization's invitee.
        return [
          { type: 'UserEmailInviteeRecorded', data: { emailDigest: command.emailDigest, userId: holder.userId, orgId: holder.orgId } },
          { type: 'UserEmailClaimed', data },
        ];
      }
    }
  },
  evolve(state, event) {
    const { userId, orgId } = event.data;
    const { [orgId]: _left, ...otherInvitees } = state.invitees;
    switch (event.type) {
      case 'UserEmailClaimed':
      case 'UserEmailReserved':
        return { holder: { userId, orgId, reserved: event.type === 'UserEmailReserved' }, invitees: otherInvitees };
      case 'UserEmailInviteeRecorded':
        return {
          holder: state.holder?.userId === userId ? null : state.holder,
          invitees: { ...state.invitees, [orgId]: userId },
        };
    }
  },
};
