import { Inject, Injectable } from '@nestjs/common';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore, KEYRING, type Keyring } from '#warden/storage';
import type { SecondFactorProof, SecondFactorState } from './domain/second-factor.decider.js';
import { secondFactorDecider } from './domain/second-factor.decider.js';
import { secondFactorStream } from './domain/identity.streams.js';
import { hashRecoveryCode, totpStep } from './domain/totp-code.js';

/** What a person typed: a current code from the app, or one of the recovery codes. */
export interface SecondFactorInput {
  readonly code?: string | undefined;
  readonly recoveryCode?: string | undefined;
}

/**
 * Turns what a person typed into a proof the decider can judge: the secret is opened and the
 * clock read here, outside the pure decider.
 */
@Injectable()
export class SecondFactorProofs {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(KEYRING) private readonly keyring: Keyring,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async load(orgId: string, userId: string): Promise<{ state: SecondFactorState }> {
    return { state: await this.aggregates.state(secondFactorStream(orgId, userId), secondFactorDecider) };
  }

  /** The time step `code` matches under the state's secret, or null. */
  stepOf(state: SecondFactorState, code: string): number | null {
    if (state.secret === null) return null;
    return totpStep(this.keyring.open(state.secret), code, this.clock.now());
  }

  /** The proof for `input` (a code wins over a recovery code), or null when it holds neither. */
  proofOf(state: SecondFactorState, input: SecondFactorInput): SecondFactorProof | null {
    const enrollmentId = state.enrollmentId ?? '';
    if (input.code) return { kind: 'code', enrollmentId, step: this.stepOf(state, input.code) };
    if (input.recoveryCode) return { kind: 'recovery-code', enrollmentId, codeHash: hashRecoveryCode(enrollmentId, input.recoveryCode) };
    return null;
  }
}
