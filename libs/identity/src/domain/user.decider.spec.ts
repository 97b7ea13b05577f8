import { describe, expect, it } from 'vitest';
import { deciderSpecification, DomainError, foldEvents } from '#warden/kernel';
import { ADDRESS_TAKEN_ON_ACCEPTANCE, type UserCommand, type UserEmailCommand, userDecider, userEmailDecider } from './user.decider.js';
import type { UserEmailEvent, UserEvent } from './user.events.js';

const created: UserEvent = {
  type: 'UserCreated',
  data: { userId: 'u1', orgId: 'acme', email: 'ann@example.com', emailDigest: 'd1', roles: ['MODERATOR'], state: 'active', passwordHash: '$scrypt$h' },
};
const opened: UserEvent = {
  type: 'ConsoleSessionOpened',
  data: { userId: 'u1', sessionId: 's1', tokenHash: 't1', csrfTokenHash: 'c1', method: 'password', expiresAt: '2030-01-01T00:00:00.000Z' },
};
const open: UserCommand = {
  type: 'OpenConsoleSession',
  orgId: 'acme',
  sessionId: 's1',
  tokenHash: 't1',
  csrfTokenHash: 'c1',
  method: 'password',
  expiresAt: '2030-01-01T00:00:00.000Z',
  openedAt: '2029-12-01T00:00:00.000Z',
};

const spec = deciderSpecification(userDecider);

describe('user decider', () => {
  it('creates a user once, with known roles in the table order', () => {
    const cmd: UserCommand = { type: 'CreateUser', ...created.data, email: 'ann@example.com', roles: ['MODERATOR', 'MODERATOR'] };
    spec.given([]).when(cmd).then([created]);
    spec
      .given([created])
      .when(cmd)
      .thenThrows(/already exists/);
    expect(
      spec
        .given([])
        .when({ ...cmd, roles: ['MODERATOR', 'ADMIN'] })
        .events()[0]!.data,
    ).toMatchObject({ roles: ['ADMIN', 'MODERATOR'] });
    expect(
      spec
        .given([])
        .when({ ...cmd, roles: ['ROOT'] })
        .thenThrows(DomainError).details,
    ).toMatchObject([{ pointer: '/roles' }]);
    spec
      .given([])
      .when({ ...cmd, roles: [] })
      .thenThrows(/at least one role/);
  });

  it('records when an IdP authenticated the user, where the sign-in names an earlier instant, and keeps it with the session', () => {
    const authenticatedAt = '2029-11-30T22:00:00.000Z';
    const withInstant: UserEvent = { type: 'ConsoleSessionOpened', data: { ...opened.data, authenticatedAt } as typeof opened.data };
    spec
      .given([created])
      .when({ ...open, authenticatedAt })
      .then([withInstant]);
    const user = foldEvents(userDecider, [created, withInstant]);
    expect(user!.sessions['s1']).toEqual({ tokenHash: 't1', csrfTokenHash: 'c1', method: 'password', expiresAt: '2030-01-01T00:00:00.000Z', authenticatedAt });
    // A session opened without one (a password sign-in, every session before the field) has none.
    expect(foldEvents(userDecider, [created, opened])!.sessions['s1']).not.toHaveProperty('authenticatedAt');
  });

  it('opens sessions for an active user only, and closes them idempotently', () => {
    spec.given([created]).when(open).then([opened]);
    const closed = spec
      .given([created, opened])
      .when({ type: 'CloseConsoleSession', orgId: 'acme', sessionId: 's1', reason: 'logout' })
      .then([{ type: 'ConsoleSessionClosed', data: { userId: 'u1', sessionId: 's1', tokenHash: 't1', reason: 'logout' } }]);
    spec
      .given([created, opened, ...closed])
      .when({ type: 'CloseConsoleSession', orgId: 'acme', sessionId: 's1', reason: 'logout' })
      .thenNothing();
    spec
      .given([created, { type: 'UserDisabled', data: { userId: 'u1' } }])
      .when(open)
      .thenThrows(/cannot sign in/);
    const invited: UserEvent = { type: 'UserCreated', data: { ...created.data, state: 'invited', passwordHash: null } };
    spec
      .given([invited])
      .when(open)
      .thenThrows(/cannot sign in/);
  });

  it('opening a session closes those that expired by then, and only those', () => {
    const old: UserEvent = { type: 'ConsoleSessionOpened', data: { ...opened.data, sessionId: 's0', tokenHash: 't0', expiresAt: '2029-11-30T00:00:00.000Z' } };
    const next: UserCommand = { ...open, sessionId: 's2', tokenHash: 't2', csrfTokenHash: 'c2', expiresAt: '2030-01-02T00:00:00.000Z' };
    spec
      .given([created, old, opened])
      .when(next)
      .then([
        { type: 'ConsoleSessionClosed', data: { userId: 'u1', sessionId: 's0', tokenHash: 't0', reason: 'expired' } },
        {
          type: 'ConsoleSessionOpened',
          data: { userId: 'u1', sessionId: 's2', tokenHash: 't2', csrfTokenHash: 'c2', method: 'password', expiresAt: '2030-01-02T00:00:00.000Z' },
        },
      ]);
  });

  it('disabling closes every open session, so enabling again does not revive them', () => {
    const events = spec.given([created, opened]).when({ type: 'DisableUser', orgId: 'acme' }).events();
    expect(events.map((e) => e.type)).toEqual(['ConsoleSessionClosed', 'UserDisabled']);
    const state = foldEvents(userDecider, [created, opened, ...events, { type: 'UserEnabled', data: { userId: 'u1', state: 'active' } }]);
    expect(state).toMatchObject({ state: 'active', sessions: {} });
    spec
      .given([created, opened, ...events])
      .when({ type: 'DisableUser', orgId: 'acme' })
      .thenNothing();
  });

  it('a new password ends every open session, before it is recorded', () => {
    const events = spec
      .given([created, opened])
      .when({ type: 'SetUserPassword', orgId: 'acme', passwordHash: '$scrypt$new' })
      .then([
        { type: 'ConsoleSessionClosed', data: { userId: 'u1', sessionId: 's1', tokenHash: 't1', reason: 'password-changed' } },
        { type: 'UserPasswordSet', data: { userId: 'u1', passwordHash: '$scrypt$new' } },
      ]);
    expect(foldEvents(userDecider, [created, opened, ...events])).toMatchObject({ sessions: {}, passwordHash: '$scrypt$new' });
  });

  it('replaces the hash a sign-in verified with a stronger one, keeping the sessions; never a hash set meanwhile', () => {
    const rehash: UserCommand = { type: 'RehashPassword', orgId: 'acme', previousHash: '$scrypt$h', passwordHash: '$scrypt$stronger' };
    const rehashed = spec
      .given([created, opened])
      .when(rehash)
      .then([{ type: 'UserPasswordRehashed', data: { userId: 'u1', passwordHash: '$scrypt$stronger' } }]);
    expect(foldEvents(userDecider, [created, opened, ...rehashed])).toMatchObject({
      passwordHash: '$scrypt$stronger',
      sessions: { s1: expect.anything() },
    });
    const reset: UserEvent = { type: 'UserPasswordSet', data: { userId: 'u1', passwordHash: '$scrypt$reset' } };
    spec.given([created, reset]).when(rehash).thenNothing();
  });

  it('records role changes with the previous roles, and nothing when they are the same', () => {
    spec
      .given([created])
      .when({ type: 'ChangeUserRoles', orgId: 'acme', roles: ['ADMIN'] })
      .then([{ type: 'UserRolesChanged', data: { userId: 'u1', previousRoles: ['MODERATOR'], roles: ['ADMIN'] } }]);
    spec
      .given([created])
      .when({ type: 'ChangeUserRoles', orgId: 'acme', roles: ['MODERATOR'] })
      .thenNothing();
  });

  it('never acts across organizations', () => {
    spec.given([created]).when({ type: 'DisableUser', orgId: 'other' }).thenThrows(DomainError);
    spec
      .given([])
      .when({ type: 'DisableUser', orgId: 'acme' })
      .thenThrows(/No such user/);
  });

  it('accepts an invitation once, before it expires, and activates the user', () => {
    const invited: UserEvent = { type: 'UserCreated', data: { ...created.data, state: 'invited', passwordHash: null } };
    const invitation: UserEvent = { type: 'UserInvited', data: { userId: 'u1', tokenHash: 'i1', expiresAt: '2030-01-04T00:00:00.000Z' } };
    const accept: UserCommand = { type: 'AcceptInvitation', orgId: 'acme', tokenHash: 'i1', passwordHash: '$p', now: '2030-01-01T00:00:00.000Z' };
    const accepted = spec
      .given([invited, invitation])
      .when(accept)
      .then([{ type: 'UserInvitationAccepted', data: { userId: 'u1', passwordHash: '$p' } }]);
    expect(foldEvents(userDecider, [invited, invitation, ...accepted])).toMatchObject({ state: 'active', invitation: null });
    spec
      .given([invited, invitation, ...accepted])
      .when(accept)
      .thenThrows(/already used or expired/);
    spec
      .given([invited, invitation])
      .when({ ...accept, now: '2030-01-05T00:00:00.000Z' })
      .thenThrows(/expired/);
    spec
      .given([invited, invitation])
      .when({ ...accept, tokenHash: 'other' })
      .thenThrows(/unknown/);
  });

  it('renews an invitation: the earlier token stops working; an active user is not invited', () => {
    const invited: UserEvent = { type: 'UserCreated', data: { ...created.data, state: 'invited', passwordHash: null } };
    const first: UserEvent = { type: 'UserInvited', data: { userId: 'u1', tokenHash: 'i1', expiresAt: '2030-01-04T00:00:00.000Z' } };
    const renewed = spec
      .given([invited, first])
      .when({ type: 'InviteUser', orgId: 'acme', tokenHash: 'i2', expiresAt: '2030-01-05T00:00:00.000Z' })
      .then([{ type: 'UserInvited', data: { userId: 'u1', tokenHash: 'i2', expiresAt: '2030-01-05T00:00:00.000Z' } }]);
    const accept: UserCommand = { type: 'AcceptInvitation', orgId: 'acme', tokenHash: 'i1', passwordHash: '$p', now: '2030-01-01T00:00:00.000Z' };
    spec
      .given([invited, first, ...renewed])
      .when(accept)
      .thenThrows(/unknown/);
    expect(
      spec
        .given([invited, first, ...renewed])
        .when({ ...accept, tokenHash: 'i2' })
        .events(),
    ).toHaveLength(1);
    spec.given([created]).when({ type: 'InviteUser', orgId: 'acme', tokenHash: 'i3', expiresAt: '2030-01-05T00:00:00.000Z' }).thenThrows(DomainError);
  });
});

describe('user email registry decider', () => {
  const registry = deciderSpecification(userEmailDecider);
  const digest = 'd1';
  const claimed = (userId: string, orgId: string): UserEmailEvent => ({ type: 'UserEmailClaimed', data: { emailDigest: digest, userId, orgId } });
  const reserved = (userId: string, orgId: string): UserEmailEvent => ({ type: 'UserEmailReserved', data: { emailDigest: digest, userId, orgId } });
  const invitee = (userId: string, orgId: string): UserEmailEvent => ({ type: 'UserEmailInviteeRecorded', data: { emailDigest: digest, userId, orgId } });
  const command = (type: UserEmailCommand['type'], userId: string, orgId: string): UserEmailCommand => ({ type, emailDigest: digest, userId, orgId });

  it('lets one user claim an address; another gets a 400 on /email', () => {
    const claim = command('ClaimUserEmail', 'u1', 'acme');
    registry
      .given([])
      .when(claim)
      .then([claimed('u1', 'acme')]);
    registry
      .given([claimed('u1', 'acme')])
      .when(claim)
      .thenNothing();
    const refused = registry
      .given([claimed('u1', 'acme')])
      .when(command('ClaimUserEmail', 'u2', 'acme'))
      .thenThrows(DomainError);
    expect(refused).toMatchObject({ status: 400, details: [expect.objectContaining({ pointer: '/email' })] });
    registry
      .given([reserved('u1', 'acme')])
      .when(command('ClaimUserEmail', 'u2', 'globex'))
      .thenThrows(/already exists/);
    // A password set on the reserving user itself makes its reservation a claim.
    registry
      .given([reserved('u1', 'acme')])
      .when(claim)
      .then([claimed('u1', 'acme')]);
  });

  it("an invitation reserves a free address, and is recorded as its organization's invitee where another organization holds it (issue 30, item 9)", () => {
    registry
      .given([])
      .when(command('InviteToUserEmail', 'u1', 'acme'))
      .then([reserved('u1', 'acme')]);
    // Another organization's account or reservation does not refuse the invitation: the inviting admin learns nothing.
    for (const held of [claimed('u1', 'acme'), reserved('u1', 'acme')]) {
      registry
        .given([held])
        .when(command('InviteToUserEmail', 'u2', 'globex'))
        .then([invitee('u2', 'globex')]);
    }
    // Invited again: nothing new, whoever holds the address.
    registry
      .given([reserved('u1', 'acme')])
      .when(command('InviteToUserEmail', 'u1', 'acme'))
      .thenNothing();
    registry
      .given([claimed('u1', 'acme'), invitee('u2', 'globex')])
      .when(command('InviteToUserEmail', 'u2', 'globex'))
      .thenNothing();
    // A second user of the same organization for the same address never comes to be.
    registry
      .given([claimed('u1', 'acme')])
      .when(command('InviteToUserEmail', 'u3', 'acme'))
      .thenThrows(/already has a user/);
    registry
      .given([claimed('u1', 'acme'), invitee('u2', 'globex')])
      .when(command('InviteToUserEmail', 'u3', 'globex'))
      .thenThrows(/already has a user/);
  });

  it('at acceptance: the invitee claims its reservation; against an account elsewhere it is refused with a 409 for the person accepting', () => {
    registry
      .given([reserved('u1', 'acme')])
      .when(command('AcceptUserEmail', 'u1', 'acme'))
      .then([claimed('u1', 'acme')]);
    registry
      .given([claimed('u1', 'acme')])
      .when(command('AcceptUserEmail', 'u1', 'acme'))
      .thenNothing();
    const refused = registry
      .given([claimed('u1', 'acme'), invitee('u2', 'globex')])
      .when(command('AcceptUserEmail', 'u2', 'globex'))
      .thenThrows(DomainError);
    expect(refused).toMatchObject({ status: 409, type: '/errors/conflict', message: expect.stringContaining(ADDRESS_TAKEN_ON_ACCEPTANCE) });
    // A user the registry never recorded for the address cannot take it.
    registry
      .given([reserved('u1', 'acme')])
      .when(command('AcceptUserEmail', 'u9', 'globex'))
      .thenThrows(/not invited/);
  });

  it("the first to accept takes an address another organization only reserved; that organization's user then waits as its invitee", () => {
    const taken = registry
      .given([reserved('u1', 'acme'), invitee('u2', 'globex')])
      .when(command('AcceptUserEmail', 'u2', 'globex'))
      .then([invitee('u1', 'acme'), claimed('u2', 'globex')]);
    const history = [reserved('u1', 'acme'), invitee('u2', 'globex'), ...taken];
    expect(foldEvents(userEmailDecider, history)).toEqual({ holder: { userId: 'u2', orgId: 'globex', reserved: false }, invitees: { acme: 'u1' } });
    // acme's user, accepting later, meets an account: refused; invited again, it is the same user.
    registry
      .given(history)
      .when(command('AcceptUserEmail', 'u1', 'acme'))
      .thenThrows(/already has a Warden account/);
    registry
      .given(history)
      .when(command('InviteToUserEmail', 'u1', 'acme'))
      .thenNothing();
  });
});
