import { describe, expect, it } from 'vitest';
import { accessAuditDecider } from './access-audit.decider.js';

const failure = { emailDigest: 'd', userId: null, method: 'password' as const, reason: 'unknown-user' as const, clientAddress: '203.0.113.7' };

describe('access-audit decider', () => {
  it('records every failed sign-in as given, whatever the trail holds, and counts them', () => {
    const decided = accessAuditDecider.decide({ type: 'RecordLoginFailure', failure }, { failures: 41 });
    expect(decided).toEqual([{ type: 'ConsoleLoginFailed', data: failure }]);
    expect(decided.reduce(accessAuditDecider.evolve, { failures: 41 })).toEqual({ failures: 42 });
  });

  it('snapshots its count', () => {
    const policy = accessAuditDecider.snapshot!;
    expect(policy.decode(policy.encode({ failures: 7 }))).toEqual({ failures: 7 });
  });
});
