import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStores } from '../../../test/support/sqlite-stores.js';
import type { ConsolePrincipal } from '#warden/platform';
import type { ProjectionHost } from '#warden/storage';
import { SECOND_FACTOR_POLICIES, type SecondFactorPolicyDoc } from './projections/second-factor.read-model.js';
import { SecondFactorEnforcement } from './second-factor-enforcement.js';

const principal: ConsolePrincipal = {
  userId: 'usr_bo',
  orgId: 'strict',
  email: 'bo@strict.example',
  roles: ['ADMIN'],
  permissions: ['USE_CONSOLE', 'MANAGE_ORG'],
  sessionId: 'ses_1',
  signedInAt: '2026-12-01T00:00:00.000Z',
};

describe('an organization that requires a second factor (SecondFactorEnforcement)', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => stores?.close());

  it('restricts a user without one even when the read model has not yet seen the requirement (a server started behind its log)', async () => {
    stores = sqliteStores();
    const readStore = stores.readStore;
    // The projection is behind: the policy is recorded in the log, not yet in the read model. Catching
    // up is what brings it there (the real host applies the projection; here, its one write).
    let catchUps = 0;
    const projections = {
      catchUp: async () => {
        catchUps++;
        await readStore.commit([
          { op: 'put', collection: SECOND_FACTOR_POLICIES, id: 'strict', doc: { orgId: 'strict', required: true } satisfies SecondFactorPolicyDoc },
        ]);
      },
    } as unknown as ProjectionHost;
    const enforcement = new SecondFactorEnforcement(readStore, projections);
    const first = await enforcement.apply(principal, 'password');
    expect(first.permissions).toEqual(['USE_CONSOLE']);
    expect(first.secondFactorEnrollmentRequired).toBe(true);
    // Once caught up, the read model follows the log: no catch-up per request for an organization that requires nothing.
    const other = await enforcement.apply({ ...principal, orgId: 'relaxed' }, 'password');
    expect(other.permissions).toEqual(principal.permissions);
    expect(catchUps).toBe(2);
  });
});
