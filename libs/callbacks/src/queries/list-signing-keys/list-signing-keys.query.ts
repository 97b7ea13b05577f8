import { Query } from '@nestjs/cqrs';

export interface SigningKeySummary {
  readonly kid: string;
  /** active: signs now; rotated: still published and verifying; retired: no longer published. */
  readonly status: 'active' | 'rotated' | 'retired';
  readonly createdAt: string;
}

/** Every signing key the organization ever had, oldest first (never the private halves). */
export class ListSigningKeysQuery extends Query<SigningKeySummary[]> {
  constructor(readonly orgId: string) {
    super();
  }
}
