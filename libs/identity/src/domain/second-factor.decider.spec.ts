import { describe, expect, it } from 'vitest';
import { deciderSpecification, DomainError } from '#warden/kernel';
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

const spec = deciderSpecification(secondFactorDecider);

const code = (step: number | null, enrollmentId = 'e1'): SecondFactorCommand => ({ type: 'Verify', proof: { kind: 'code', enrollmentId, step } });
const recovery = (codeHash: string): SecondFactorCommand => ({ type: 'Verify', proof: { kind: 'recovery-code', enrollmentId: 'e1', codeHash } });

describe('second factor decider', () => {
  it('starts an enrollment, and starts over while it is pending, but not once active', () => {
    const start: SecondFactorCommand = { type: 'StartEnrollment', ...ids, enrollmentId: 'e1', secret };
    spec.given([]).when(start).then([started]);
    spec
      .given([started])
      .when({ ...start, enrollmentId: 'e2' })
      .then([{ type: 'SecondFactorEnrollmentStarted', data: { ...ids, enrollmentId: 'e2', secret } }]);
    spec
      .given([started, confirmed])
      .when(start)
      .thenThrows(/already active/);
  });

  it('confirms with a valid code, issuing the recovery codes; refuses a wrong code or a stale enrollment', () => {
    const confirm: SecondFactorCommand = { type: 'ConfirmEnrollment', enrollmentId: 'e1', step: 100, recoveryCodeHashes: hashes };
    spec.given([started]).when(confirm).then([confirmed]);
    spec
      .given([started])
      .when({ ...confirm, step: null })
      .thenThrows(/not valid/);
    spec
      .given([started])
      .when({ ...confirm, enrollmentId: 'e0' })
      .thenThrows(/new enrollment/);
    spec
      .given([])
      .when(confirm)
      .thenThrows(/No second-factor enrollment/);
    spec
      .given([started, confirmed])
      .when(confirm)
      .thenThrows(/already active/);
  });

  it('spends a time step once: the same code, or an older one, is refused (replay)', () => {
    const used = spec
      .given([started, confirmed])
      .when(code(101))
      .then([{ type: 'SecondFactorCodeUsed', data: { ...ids, enrollmentId: 'e1', step: 101 } }]);
    spec
      .given([started, confirmed, ...used])
      .when(code(101))
      .thenThrows(/already used/);
    spec
      .given([started, confirmed, ...used])
      .when(code(100))
      .thenThrows(/already used/);
    // The confirming code's step is spent too.
    spec
      .given([started, confirmed])
      .when(code(100))
      .thenThrows(/already used/);
    expect(
      spec
        .given([started, confirmed, ...used])
        .when(code(102))
        .events(),
    ).toHaveLength(1);
  });

  it('refuses a code that matched no step, a pending or missing factor, and a step of another secret', () => {
    spec
      .given([started, confirmed])
      .when(code(null))
      .thenThrows(/not valid/);
    spec
      .given([started])
      .when(code(101))
      .thenThrows(/No active second factor/);
    spec.given([]).when(code(101)).thenThrows(DomainError);
    spec
      .given([started, confirmed])
      .when(code(101, 'e0'))
      .thenThrows(/re-enrolled/);
  });

  it('spends each recovery code once', () => {
    const used = spec
      .given([started, confirmed])
      .when(recovery('h3'))
      .then([{ type: 'SecondFactorRecoveryCodeUsed', data: { ...ids, enrollmentId: 'e1', index: 3, remaining: 9 } }]);
    spec
      .given([started, confirmed, ...used])
      .when(recovery('h3'))
      .thenThrows(/recovery code is not valid or was already used/);
    spec
      .given([started, confirmed])
      .when(recovery('nope'))
      .thenThrows(/recovery code/);
    const next = spec
      .given([started, confirmed, ...used])
      .when(recovery('h4'))
      .events();
    expect(next[0]!.data).toMatchObject({ index: 4, remaining: 8 });
  });

  it('disables an active factor only with a proof, and then allows a new enrollment', () => {
    spec
      .given([started, confirmed])
      .when({ type: 'Disable', proof: null })
      .thenThrows(/Send a current code/);
    spec
      .given([started, confirmed])
      .when({ type: 'Disable', proof: { kind: 'code', enrollmentId: 'e1', step: null } })
      .thenThrows(/not valid/);
    const disabled = spec
      .given([started, confirmed])
      .when({ type: 'Disable', proof: { kind: 'recovery-code', enrollmentId: 'e1', codeHash: 'h0' } })
      .events();
    expect(disabled.map((e) => e.type)).toEqual(['SecondFactorRecoveryCodeUsed', 'SecondFactorDisabled']);
    expect(disabled[1]!.data).toEqual({ ...ids, enrollmentId: 'e1', proof: 'recovery-code' });
    const after = [started, confirmed, ...disabled];
    spec
      .given(after)
      .when(code(101))
      .thenThrows(/No active second factor/);
    spec
      .given(after)
      .when({ type: 'Disable', proof: null })
      .thenThrows(/No second factor/);
    expect(
      spec
        .given(after)
        .when({ type: 'StartEnrollment', ...ids, enrollmentId: 'e2', secret })
        .events(),
    ).toHaveLength(1);
  });

  it('cancels a pending enrollment without a proof', () => {
    spec
      .given([started])
      .when({ type: 'Disable', proof: null })
      .then([{ type: 'SecondFactorDisabled', data: { ...ids, enrollmentId: 'e1', proof: 'none' } }]);
  });
});
