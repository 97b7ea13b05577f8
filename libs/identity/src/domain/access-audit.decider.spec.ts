import { describe, expect, it } from 'vitest';
import { accessAuditDecider } from './access-audit.decider.js';

const failure = { emailDigest: 'd', userId: null, method: 'password' as const, reason: 'unknown-user' as const, clientAddress: '203.0.113.7' };

describe('access-audit decider', () => {
  it('records every failed sign-in as given, whatever the trail holds, and counts them', () => {
    const decided = accessAuditDecider.decide({ type: 'RecordLoginFailure', failure }, { failures: 41 });
    expect(decided).toEqual([{ type: 'ConsoleLoginFailed', data: failure }]);
    expect(decided.reduce(accessAuditDecider.evolve, { failures: 41 })).toEqual({ failures: 42 });
  });

  it('records every Investigate lookup as given, and counts only failures', () => {
    const view = { userId: 'u-1', viewed: { kind: 'item' as const, typeId: 'post', id: 'p-1' } };
    const decided = accessAuditDecider.decide({ type: 'RecordInvestigationView', view }, { failures: 3 });
    expect(decided).toEqual([{ type: 'ConsoleInvestigationViewed', data: view }]);
    expect(decided.reduce(accessAuditDecider.evolve, { failures: 3 })).toEqual({ failures: 3 });
    // Given a trail of failures and lookups, a second lookup of the same item is recorded again.
    const trail = [{ type: 'ConsoleLoginFailed' as const, data: failure }, ...decided];
    const state = trail.reduce(accessAuditDecider.evolve, accessAuditDecider.initialState);
    expect(accessAuditDecider.decide({ type: 'RecordInvestigationView', view }, state)).toEqual(decided);
  });

  it('snapshots its count', () => {
    const policy = accessAuditDecider.snapshot!;
    expect(policy.decode(policy.encode({ failures: 7 }))).toEqual({ failures: 7 });
  });
});
