import { describe, expect, it } from 'vitest';
import { DomainError, foldEvents } from '#warden/kernel';
import { type SecondFactorCommand, secondFactorDecider } from './second-factor.decider.js';
import type { SecondFactorEvent } from './second-factor.events.js';

const ids = { orgId: 'acme', userId: 'usr_1' };
const secret = { kid: 'k', iv: 'iv', ct: 'ct', tag: 'tag' };
const hashes = Array.from({ length: 10 }, (_, i) => `h${i}`);

const started: SecondFactorEvent = { type: 'SecondFactorEnrollmentStarted', data: { ...ids, enrollmentId: 'e1', secret } };
const confirmed: SecondFactorEvent = {
  type: 'SecondFactorConfirmed',
  data: { ...ids, enrollmentId: 'e1', step: 100, recoveryCodeHashes: hashes },
};

function given(events: SecondFactorEvent[], command: SecondFactorCommand) {
  return secondFactorDecider.decide(command, foldEvents(secondFactorDecider, events));
}

const code = (step: number | null, enrollmentId = 'e1'): SecondFactorCommand => ({ type: 'Verify', proof: { kind: 'code', enrollmentId, step } });
const recovery = (codeHash: string): SecondFactorCommand => ({ type: 'Verify', proof: { kind: 'recovery-code', enrollmentId: 'e1', codeHash } });

describe('second factor decider', () => {
  it('starts an enrollment, and starts over while it is pending, but not once active', () => {
    const start: SecondFactorCommand = { type: 'StartEnrollment', ...ids, enrollmentId: 'e1', secret };
    expect(given([], start)).toEqual([started]);
    expect(given([started], { ...start, enrollmentId: 'e2' })).toEqual([
      { type: 'SecondFactorEnrollmentStarted', data: { ...ids, enrollmentId: 'e2', secret } },
    ]);
    expect(() => given([started, confirmed], start)).toThrow(/already active/);
  });

  it('confirms with a valid code, issuing the recovery codes; refuses a wrong code or a stale enrollment', () => {
    const confirm: SecondFactorCommand = { type: 'ConfirmEnrollment', enrollmentId: 'e1', step: 100, recoveryCodeHashes: hashes };
    expect(given([started], confirm)).toEqual([confirmed]);
    expect(() => given([started], { ...confirm, step: null })).toThrow(/not valid/);
    expect(() => given([started], { ...confirm, enrollmentId: 'e0' })).toThrow(/new enrollment/);
    expect(() => given([], confirm)).toThrow(/No second-factor enrollment/);
    expect(() => given([started, confirmed], confirm)).toThrow(/already active/);
  });

  it('spends a time step once: the same code, or an older one, is refused (replay)', () => {
    const used = given([started, confirmed], code(101));
    expect(used).toEqual([{ type: 'SecondFactorCodeUsed', data: { ...ids, enrollmentId: 'e1', step: 101 } }]);
    expect(() => given([started, confirmed, ...used], code(101))).toThrow(/already used/);
    expect(() => given([started, confirmed, ...used], code(100))).toThrow(/already used/);
    // The confirming code's step is spent too.
    expect(() => given([started, confirmed], code(100))).toThrow(/already used/);
    expect(given([started, confirmed, ...used], code(102))).toHaveLength(1);
  });

  it('refuses a code that matched no step, a pending or missing factor, and a step of another secret', () => {
    expect(() => given([started, confirmed], code(null))).toThrow(/not valid/);
    expect(() => given([started], code(101))).toThrow(/No active second factor/);
    expect(() => given([], code(101))).toThrow(DomainError);
    expect(() => given([started, confirmed], code(101, 'e0'))).toThrow(/re-enrolled/);
  });

  it('spends each recovery code once', () => {
    const used = given([started, confirmed], recovery('h3'));
    expect(used).toEqual([{ type: 'SecondFactorRecoveryCodeUsed', data: { ...ids, enrollmentId: 'e1', index: 3, remaining: 9 } }]);
    expect(() => given([started, confirmed, ...used], recovery('h3'))).toThrow(/recovery code is not valid or was already used/);
    expect(() => given([started, confirmed], recovery('nope'))).toThrow(/recovery code/);
    const next = given([started, confirmed, ...used], recovery('h4'));
    expect(next[0]!.data).toMatchObject({ index: 4, remaining: 8 });
  });

  it('disables an active factor only with a proof, and then allows a new enrollment', () => {
    expect(() => given([started, confirmed], { type: 'Disable', proof: null })).toThrow(/Send a current code/);
    expect(() => given([started, confirmed], { type: 'Disable', proof: { kind: 'code', enrollmentId: 'e1', step: null } })).toThrow(/not valid/);
    const disabled = given([started, confirmed], { type: 'Disable', proof: { kind: 'recovery-code', enrollmentId: 'e1', codeHash: 'h0' } });
    expect(disabled.map((e) => e.type)).toEqual(['SecondFactorRecoveryCodeUsed', 'SecondFactorDisabled']);
    expect(disabled[1]!.data).toEqual({ ...ids, enrollmentId: 'e1', proof: 'recovery-code' });
    const after = [started, confirmed, ...disabled];
    expect(() => given(after, code(101))).toThrow(/No active second factor/);
    expect(() => given(after, { type: 'Disable', proof: null })).toThrow(/No second factor/);
    expect(given(after, { type: 'StartEnrollment', ...ids, enrollmentId: 'e2', secret })).toHaveLength(1);
  });

  it('cancels a pending enrollment without a proof', () => {
    expect(given([started], { type: 'Disable', proof: null })).toEqual([
      { type: 'SecondFactorDisabled', data: { ...ids, enrollmentId: 'e1', proof: 'none' } },
    ]);
  });
});
