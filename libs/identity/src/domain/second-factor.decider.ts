import { concurrentUpdateConflict, conflict, type Decider, invalidField, notFound } from '#warden/kernel';
import type { SealedTotpSecret, SecondFactorEvent } from './second-factor.events.js';

/**
 * What a user proved. Checking a TOTP code needs the opened secret and the clock, so the handler
 * does it and passes the time step the code matched (null: none in the accepted window); the
 * decider only decides whether that step may still be spent. `enrollmentId` names the secret the
 * step was computed with, so a re-enrollment in between is never confused with it.
 */
export type SecondFactorProof = { kind: 'code'; enrollmentId: string; step: number | null } | { kind: 'recovery-code'; enrollmentId: string; codeHash: string };

export type SecondFactorCommand =
  | { type: 'StartEnrollment'; orgId: string; userId: string; enrollmentId: string; secret: SealedTotpSecret }
  | { type: 'ConfirmEnrollment'; enrollmentId: string; step: number | null; recoveryCodeHashes: string[] }
  | { type: 'Verify'; proof: SecondFactorProof }
  | { type: 'Disable'; proof: SecondFactorProof | null };

export type SecondFactorStatus = 'none' | 'pending' | 'active';

export interface SecondFactorState {
  readonly status: SecondFactorStatus;
  readonly orgId: string | null;
  readonly userId: string | null;
  readonly enrollmentId: string | null;
  readonly secret: SealedTotpSecret | null;
  /** The last time step spent: a code of this step or an earlier one is refused (replay). */
  readonly lastStep: number | null;
  readonly recoveryCodeHashes: readonly string[];
  readonly usedRecoveryCodes: readonly number[];
}

const initialState: SecondFactorState = {
  status: 'none',
  orgId: null,
  userId: null,
  enrollmentId: null,
  secret: null,
  lastStep: null,
  recoveryCodeHashes: [],
  usedRecoveryCodes: [],
};

export const RECOVERY_CODE_COUNT = 10;

const POINTER = { code: '/code', 'recovery-code': '/recoveryCode' } as const;

const wrongProof = (proof: SecondFactorProof) =>
  invalidField(POINTER[proof.kind], proof.kind === 'code' ? 'The code is not valid' : 'The recovery code is not valid or was already used');

/** The event a valid proof leads to: the spent time step, or the spent recovery code. */
function spend(state: SecondFactorState, proof: SecondFactorProof): SecondFactorEvent {
  const ids = { orgId: state.orgId!, userId: state.userId!, enrollmentId: state.enrollmentId! };
  if (proof.enrollmentId !== state.enrollmentId) {
    throw concurrentUpdateConflict('The second factor was re-enrolled while this code was checked; try again');
  }
  if (proof.kind === 'code') {
    if (proof.step === null) throw wrongProof(proof);
    if (state.lastStep !== null && proof.step <= state.lastStep) {
      throw invalidField('/code', 'This code was already used; wait for the next one');
    }
    return { type: 'SecondFactorCodeUsed', data: { ...ids, step: proof.step } };
  }
  const index = state.recoveryCodeHashes.indexOf(proof.codeHash);
  if (index < 0 || state.usedRecoveryCodes.includes(index)) throw wrongProof(proof);
  const remaining = state.recoveryCodeHashes.length - state.usedRecoveryCodes.length - 1;
  return { type: 'SecondFactorRecoveryCodeUsed', data: { ...ids, index, remaining } };
}

/**
 * A user's TOTP second factor: enrollment (pending until a valid code confirms it), codes spent
 * once per time step, recovery codes spent once, disabling with a proof.
 */
export const secondFactorDecider: Decider<SecondFactorCommand, SecondFactorState, SecondFactorEvent> = {
  eventTypes: {
    SecondFactorEnrollmentStarted: true,
    SecondFactorConfirmed: true,
    SecondFactorCodeUsed: true,
    SecondFactorRecoveryCodeUsed: true,
    SecondFactorDisabled: true,
  },
  initialState,
  decide(command, state) {
    switch (command.type) {
      case 'StartEnrollment': {
        if (state.status === 'active') throw conflict('A second factor is already active; disable it before enrolling a new one');
        const { type: _type, ...data } = command;
        return [{ type: 'SecondFactorEnrollmentStarted', data }];
      }
      case 'ConfirmEnrollment': {
        if (state.status === 'active') throw conflict('The second factor is already active');
        if (state.status !== 'pending') throw notFound('No second-factor enrollment was started');
        if (command.enrollmentId !== state.enrollmentId) {
          throw concurrentUpdateConflict('A new enrollment was started while this code was checked; use a code of the new secret');
        }
        if (command.step === null) throw invalidField('/code', 'The code is not valid');
        if (command.recoveryCodeHashes.length !== RECOVERY_CODE_COUNT) throw new Error(`Expected ${RECOVERY_CODE_COUNT} recovery codes`);
        return [
          {
            type: 'SecondFactorConfirmed',
            data: {
              orgId: state.orgId!,
              userId: state.userId!,
              enrollmentId: state.enrollmentId,
              step: command.step,
              recoveryCodeHashes: command.recoveryCodeHashes,
            },
          },
        ];
      }
      case 'Verify':
        if (state.status !== 'active') throw notFound('No active second factor');
        return [spend(state, command.proof)];
      case 'Disable': {
        if (state.status === 'none') throw notFound('No second factor to disable');
        const ids = { orgId: state.orgId!, userId: state.userId!, enrollmentId: state.enrollmentId! };
        if (state.status === 'pending') return [{ type: 'SecondFactorDisabled', data: { ...ids, proof: 'none' } }];
        if (command.proof === null) throw invalidField('/code', 'Send a current code or a recovery code to disable the second factor');
        return [spend(state, command.proof), { type: 'SecondFactorDisabled', data: { ...ids, proof: command.proof.kind } }];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'SecondFactorEnrollmentStarted':
        return {
          ...initialState,
          status: 'pending',
          orgId: event.data.orgId,
          userId: event.data.userId,
          enrollmentId: event.data.enrollmentId,
          secret: event.data.secret,
        };
      case 'SecondFactorConfirmed':
        return { ...state, status: 'active', lastStep: event.data.step, recoveryCodeHashes: event.data.recoveryCodeHashes, usedRecoveryCodes: [] };
      case 'SecondFactorCodeUsed':
        return { ...state, lastStep: event.data.step };
      case 'SecondFactorRecoveryCodeUsed':
        return { ...state, usedRecoveryCodes: [...state.usedRecoveryCodes, event.data.index] };
      case 'SecondFactorDisabled':
        return { ...initialState, orgId: state.orgId, userId: state.userId };
    }
  },
};
