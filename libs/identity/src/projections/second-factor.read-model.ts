export const SECOND_FACTORS = 'identity_second_factors';

/** A user's second factor as the console shows it; nothing secret (no secret, no code hashes). */
export type SecondFactorDoc = {
  orgId: string;
  userId: string;
  status: 'pending' | 'active';
  /** Recovery codes not used yet (0 while pending). */
  recoveryCodesRemaining: number;
  activeSince: string | null;
};

export const secondFactorDocId = (orgId: string, userId: string) => `${orgId}:${userId}`;

/** Organizations whose configuration requires a second factor (`org.settings.requireSecondFactor`). */
export const SECOND_FACTOR_POLICIES = 'identity_second_factor_policies';

export type SecondFactorPolicyDoc = { orgId: string; required: boolean };
