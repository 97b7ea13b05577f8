import type { DomainEvent } from '#warden/kernel';

/** The TOTP secret at rest: sealed with the keyring (AES-256-GCM), opened only to check a code. */
export interface SealedTotpSecret {
  readonly kid: string;
  readonly iv: string;
  readonly ct: string;
  readonly tag: string;
}

export type SecondFactorEnrollmentStarted = DomainEvent<
  'SecondFactorEnrollmentStarted',
  { orgId: string; userId: string; enrollmentId: string; secret: SealedTotpSecret }
>;
/** A valid code confirmed the enrollment: the factor is active and the recovery codes are issued (hashes only). */
export type SecondFactorConfirmed = DomainEvent<
  'SecondFactorConfirmed',
  { orgId: string; userId: string; enrollmentId: string; step: number; recoveryCodeHashes: string[] }
>;
/** A code was accepted; its time step is spent, so the same code (or an older one) is refused from now on. */
export type SecondFactorCodeUsed = DomainEvent<'SecondFactorCodeUsed', { orgId: string; userId: string; enrollmentId: string; step: number }>;
/** One recovery code (by its position in the issued list) was spent. */
export type SecondFactorRecoveryCodeUsed = DomainEvent<
  'SecondFactorRecoveryCodeUsed',
  { orgId: string; userId: string; enrollmentId: string; index: number; remaining: number }
>;
export type SecondFactorDisabled = DomainEvent<'SecondFactorDisabled', { orgId: string; userId: string; enrollmentId: string; proof: SecondFactorProofKind }>;

/** What the user proved to disable the factor; `none` only for an enrollment never confirmed. */
export type SecondFactorProofKind = 'code' | 'recovery-code' | 'none';

export type SecondFactorEvent =
  SecondFactorEnrollmentStarted | SecondFactorConfirmed | SecondFactorCodeUsed | SecondFactorRecoveryCodeUsed | SecondFactorDisabled;

export const SECOND_FACTOR_EVENT_TYPES = [
  'SecondFactorEnrollmentStarted',
  'SecondFactorConfirmed',
  'SecondFactorCodeUsed',
  'SecondFactorRecoveryCodeUsed',
  'SecondFactorDisabled',
] as const;
