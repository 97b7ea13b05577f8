import { describe, expect, it } from 'vitest';
import { DomainError } from '#warden/kernel';
import { type ExistingUser, planUsers } from './users-plan.js';

const user = (id: string, email: string, roles: ExistingUser['roles'], state: ExistingUser['state'] = 'active', orgId = 'acme'): ExistingUser => ({
  id,
  orgId,
  email,
  roles,
  state,
});

describe('users plan of apply', () => {
  it('creates the users the organization lacks, with the roles in table order and the address in lower case', () => {
    const plan = planUsers('acme', [{ email: 'New@Acme.example', roles: ['MODERATOR', 'ADMIN'] }], [], false);
    expect(plan.create).toEqual([{ email: 'new@acme.example', roles: ['ADMIN', 'MODERATOR'] }]);
    expect(plan.updateRoles).toEqual([]);
  });

  it('changes only roles that differ, comparing addresses without case; a second apply changes nothing', () => {
    const existing = [user('u1', 'a@acme.example', ['ADMIN']), user('u2', 'b@acme.example', ['MODERATOR'])];
    const desired = [
      { email: 'A@acme.example', roles: ['ADMIN'] },
      { email: 'b@acme.example', roles: ['ANALYST', 'MODERATOR'] },
    ];
    expect(planUsers('acme', desired, existing, false)).toMatchObject({
      create: [],
      updateRoles: [{ userId: 'u2', email: 'b@acme.example', roles: ['ANALYST', 'MODERATOR'] }],
    });
    const after = [existing[0]!, user('u2', 'b@acme.example', ['ANALYST', 'MODERATOR'])];
    expect(planUsers('acme', desired, after, true)).toEqual({ create: [], updateRoles: [], disable: [], leftAlone: [], stillDisabled: [] });
  });

  it('disables users the file does not name only with prune, and otherwise says it left them alone', () => {
    const existing = [
      user('u1', 'a@acme.example', ['ADMIN']),
      user('u2', 'gone@acme.example', ['MODERATOR']),
      user('u3', 'off@acme.example', ['ANALYST'], 'disabled'),
    ];
    const desired = [{ email: 'a@acme.example', roles: ['ADMIN'] }];
    expect(planUsers('acme', desired, existing, false)).toMatchObject({ disable: [], leftAlone: ['gone@acme.example'] });
    expect(planUsers('acme', desired, existing, true)).toMatchObject({ disable: [{ userId: 'u2', email: 'gone@acme.example' }], leftAlone: [] });
  });

  it('never enables a disabled user the file names; it says so', () => {
    const plan = planUsers('acme', [{ email: 'off@acme.example', roles: ['ANALYST'] }], [user('u3', 'off@acme.example', ['ANALYST'], 'disabled')], false);
    expect(plan).toMatchObject({ create: [], updateRoles: [], stillDisabled: ['off@acme.example'] });
  });

  it("manages the organization's own user invited with an address another organization holds, whatever order they come in", () => {
    const theirs = user('x', 'shared@other.example', ['ADMIN'], 'active', 'other');
    const ours = user('u1', 'shared@other.example', ['MODERATOR'], 'invited');
    for (const existing of [
      [ours, theirs],
      [theirs, ours],
    ]) {
      expect(planUsers('acme', [{ email: 'shared@other.example', roles: ['ANALYST'] }], existing, false)).toMatchObject({
        create: [],
        updateRoles: [{ userId: 'u1', email: 'shared@other.example', roles: ['ANALYST'] }],
      });
    }
  });

  it('refuses, before any change, unknown or missing roles and an address of another organization', () => {
    const attempt = () =>
      planUsers(
        'acme',
        [
          { email: 'ok@acme.example', roles: ['ADMIN'] },
          { email: 'none@acme.example', roles: [] },
          { email: 'bad@acme.example', roles: ['OWNER'] },
          { email: 'theirs@other.example', roles: ['ADMIN'] },
        ],
        [user('x', 'theirs@other.example', ['ADMIN'], 'active', 'other')],
        true,
      );
    expect(attempt).toThrow(DomainError);
    try {
      attempt();
    } catch (error) {
      expect((error as DomainError).details.map((d) => d.pointer)).toEqual(['/users/1/roles', '/users/2/roles', '/users/3/email']);
    }
  });

  it('refuses, before any change, what creating the user would refuse after the catalog was written: an address over 254 characters, one named twice in another Unicode form', () => {
    const long = `${'a'.repeat(250)}@acme.example`;
    const attempt = () =>
      planUsers(
        'acme',
        [
          { email: 'ok@acme.example', roles: ['ADMIN'] },
          { email: long, roles: ['ADMIN'] },
          { email: 'jos\u00e9@acme.example', roles: ['ADMIN'] },
          { email: 'JOSE\u0301@acme.example', roles: ['MODERATOR'] },
        ],
        [],
        false,
      );
    expect(attempt).toThrow(DomainError);
    try {
      attempt();
    } catch (error) {
      expect((error as DomainError).details).toEqual([
        expect.objectContaining({ pointer: '/users/1/email', detail: expect.stringMatching(/at most 254 characters/) }),
        expect.objectContaining({ pointer: '/users/3/email', detail: expect.stringMatching(/names this address twice/) }),
      ]);
    }
  });

  it('refuses, before any change, an address erased with its console account by a GDPR deletion (apply wrote the catalog, then failed on it)', () => {
    const erasedAdmin: ExistingUser = { id: 'a', orgId: 'acme', email: null, roles: ['ADMIN'], state: 'active' };
    const attempt = () => planUsers('acme', [{ email: 'Admin@acme.example', roles: ['ADMIN'] }], [erasedAdmin], false, new Set(['admin@acme.example']));
    expect(attempt).toThrow(DomainError);
    try {
      attempt();
    } catch (error) {
      expect((error as DomainError).details).toEqual([
        expect.objectContaining({ pointer: '/users/0/email', detail: expect.stringMatching(/erased .* GDPR deletion/) }),
      ]);
    }
  });
});
