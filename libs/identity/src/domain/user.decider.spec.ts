import { describe, expect, it } from 'vitest';
import { DomainError, foldEvents } from '#warden/kernel';
import { type UserCommand, userDecider, userEmailDecider } from './user.decider.js';
import type { UserEvent } from './user.events.js';

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

function given(events: UserEvent[], command: UserCommand) {
  return userDecider.decide(command, foldEvents(userDecider, events));
}

describe('user decider', () => {
  it('creates a user once, with known roles in the table order', () => {
    const cmd: UserCommand = { type: 'CreateUser', ...created.data, email: 'ann@example.com', roles: ['MODERATOR', 'MODERATOR'] };
    expect(given([], cmd)).toEqual([created]);
    expect(() => given([created], cmd)).toThrow(/already exists/);
    expect(given([], { ...cmd, roles: ['MODERATOR', 'ADMIN'] })[0]!.data).toMatchObject({ roles: ['ADMIN', 'MODERATOR'] });
    expect(() => given([], { ...cmd, roles: ['ROOT'] })).toThrow(expect.objectContaining({ details: [expect.objectContaining({ pointer: '/roles' })] }));
    expect(() => given([], { ...cmd, roles: [] })).toThrow(/at least one role/);
  });

  it('opens sessions for an active user only, and closes them idempotently', () => {
    expect(given([created], open)).toEqual([opened]);
    const closed = given([created, opened], { type: 'CloseConsoleSession', orgId: 'acme', sessionId: 's1', reason: 'logout' });
    expect(closed).toEqual([{ type: 'ConsoleSessionClosed', data: { userId: 'u1', sessionId: 's1', tokenHash: 't1', reason: 'logout' } }]);
    expect(given([created, opened, ...closed], { type: 'CloseConsoleSession', orgId: 'acme', sessionId: 's1', reason: 'logout' })).toEqual([]);
    expect(() => given([created, { type: 'UserDisabled', data: { userId: 'u1' } }], open)).toThrow(/cannot sign in/);
    const invited: UserEvent = { type: 'UserCreated', data: { ...created.data, state: 'invited', passwordHash: null } };
    expect(() => given([invited], open)).toThrow(/cannot sign in/);
  });

  it('opening a session closes those that expired by then, and only those', () => {
    const old: UserEvent = { type: 'ConsoleSessionOpened', data: { ...opened.data, sessionId: 's0', tokenHash: 't0', expiresAt: '2029-11-30T00:00:00.000Z' } };
    const next: UserCommand = { ...open, sessionId: 's2', tokenHash: 't2', csrfTokenHash: 'c2', expiresAt: '2030-01-02T00:00:00.000Z' };
    expect(given([created, old, opened], next)).toEqual([
      { type: 'ConsoleSessionClosed', data: { userId: 'u1', sessionId: 's0', tokenHash: 't0', reason: 'expired' } },
      { type: 'ConsoleSessionOpened', data: { userId: 'u1', sessionId: 's2', tokenHash: 't2', csrfTokenHash: 'c2', method: 'password', expiresAt: '2030-01-02T00:00:00.000Z' } },
    ]);
  });

  it('disabling closes every open session, so enabling again does not revive them', () => {
    const events = given([created, opened], { type: 'DisableUser', orgId: 'acme' });
    expect(events.map((e) => e.type)).toEqual(['ConsoleSessionClosed', 'UserDisabled']);
    const state = foldEvents(userDecider, [created, opened, ...events, { type: 'UserEnabled', data: { userId: 'u1', state: 'active' } }]);
    expect(state).toMatchObject({ state: 'active', sessions: {} });
    expect(given([created, opened, ...events], { type: 'DisableUser', orgId: 'acme' })).toEqual([]);
  });

  it('a new password ends every open session, before it is recorded', () => {
    const events = given([created, opened], { type: 'SetUserPassword', orgId: 'acme', passwordHash: '$scrypt$new' });
    expect(events).toEqual([
      { type: 'ConsoleSessionClosed', data: { userId: 'u1', sessionId: 's1', tokenHash: 't1', reason: 'password-changed' } },
      { type: 'UserPasswordSet', data: { userId: 'u1', passwordHash: '$scrypt$new' } },
    ]);
    expect(foldEvents(userDecider, [created, opened, ...events])).toMatchObject({ sessions: {}, passwordHash: '$scrypt$new' });
  });

  it('replaces the hash a sign-in verified with a stronger one, keeping the sessions; never a hash set meanwhile', () => {
    const rehash: UserCommand = { type: 'RehashPassword', orgId: 'acme', previousHash: '$scrypt$h', passwordHash: '$scrypt$stronger' };
    expect(given([created, opened], rehash)).toEqual([{ type: 'UserPasswordRehashed', data: { userId: 'u1', passwordHash: '$scrypt$stronger' } }]);
    expect(foldEvents(userDecider, [created, opened, ...given([created, opened], rehash)])).toMatchObject({
      passwordHash: '$scrypt$stronger',
      sessions: { s1: expect.anything() },
    });
    const reset: UserEvent = { type: 'UserPasswordSet', data: { userId: 'u1', passwordHash: '$scrypt$reset' } };
    expect(given([created, reset], rehash)).toEqual([]);
  });

  it('records role changes with the previous roles, and nothing when they are the same', () => {
    expect(given([created], { type: 'ChangeUserRoles', orgId: 'acme', roles: ['ADMIN'] })).toEqual([
      { type: 'UserRolesChanged', data: { userId: 'u1', previousRoles: ['MODERATOR'], roles: ['ADMIN'] } },
    ]);
    expect(given([created], { type: 'ChangeUserRoles', orgId: 'acme', roles: ['MODERATOR'] })).toEqual([]);
  });

  it('never acts across organizations', () => {
    expect(() => given([created], { type: 'DisableUser', orgId: 'other' })).toThrow(DomainError);
    expect(() => given([], { type: 'DisableUser', orgId: 'acme' })).toThrow(/No such user/);
  });

  it('accepts an invitation once, before it expires, and activates the user', () => {
    const invited: UserEvent = { type: 'UserCreated', data: { ...created.data, state: 'invited', passwordHash: null } };
    const invitation: UserEvent = { type: 'UserInvited', data: { userId: 'u1', tokenHash: 'i1', expiresAt: '2030-01-04T00:00:00.000Z' } };
    const accept: UserCommand = { type: 'AcceptInvitation', orgId: 'acme', tokenHash: 'i1', passwordHash: '$p', now: '2030-01-01T00:00:00.000Z' };
    const accepted = given([invited, invitation], accept);
    expect(accepted).toEqual([{ type: 'UserInvitationAccepted', data: { userId: 'u1', passwordHash: '$p' } }]);
    expect(foldEvents(userDecider, [invited, invitation, ...accepted])).toMatchObject({ state: 'active', invitation: null });
    expect(() => given([invited, invitation, ...accepted], accept)).toThrow(/already used or expired/);
    expect(() => given([invited, invitation], { ...accept, now: '2030-01-05T00:00:00.000Z' })).toThrow(/expired/);
    expect(() => given([invited, invitation], { ...accept, tokenHash: 'other' })).toThrow(/unknown/);
  });

  it('renews an invitation: the earlier token stops working; an active user is not invited', () => {
    const invited: UserEvent = { type: 'UserCreated', data: { ...created.data, state: 'invited', passwordHash: null } };
    const first: UserEvent = { type: 'UserInvited', data: { userId: 'u1', tokenHash: 'i1', expiresAt: '2030-01-04T00:00:00.000Z' } };
    const renewed = given([invited, first], { type: 'InviteUser', orgId: 'acme', tokenHash: 'i2', expiresAt: '2030-01-05T00:00:00.000Z' });
    expect(renewed).toEqual([{ type: 'UserInvited', data: { userId: 'u1', tokenHash: 'i2', expiresAt: '2030-01-05T00:00:00.000Z' } }]);
    const accept: UserCommand = { type: 'AcceptInvitation', orgId: 'acme', tokenHash: 'i1', passwordHash: '$p', now: '2030-01-01T00:00:00.000Z' };
    expect(() => given([invited, first, ...renewed], accept)).toThrow(/unknown/);
    expect(given([invited, first, ...renewed], { ...accept, tokenHash: 'i2' })).toHaveLength(1);
    expect(() => given([created], { type: 'InviteUser', orgId: 'acme', tokenHash: 'i3', expiresAt: '2030-01-05T00:00:00.000Z' })).toThrow(DomainError);
  });
});

describe('user email registry decider', () => {
  it('lets one user claim an address; another gets a 400 on /email', () => {
    const claim = { type: 'ClaimUserEmail' as const, emailDigest: 'd1', userId: 'u1', orgId: 'acme' };
    const events = userEmailDecider.decide(claim, userEmailDecider.initialState);
    expect(events).toEqual([{ type: 'UserEmailClaimed', data: { emailDigest: 'd1', userId: 'u1', orgId: 'acme' } }]);
    const state = foldEvents(userEmailDecider, events);
    expect(userEmailDecider.decide(claim, state)).toEqual([]);
    expect(() => userEmailDecider.decide({ ...claim, userId: 'u2' }, state)).toThrow(
      expect.objectContaining({ status: 400, details: [expect.objectContaining({ pointer: '/email' })] }),
    );
  });
});
