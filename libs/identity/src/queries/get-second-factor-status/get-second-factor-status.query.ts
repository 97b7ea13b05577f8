import { Query } from '@nestjs/cqrs';

export interface SecondFactorStatus {
  readonly status: 'none' | 'pending' | 'active';
  readonly recoveryCodesRemaining: number;
}

/** Whether a user has a second factor (from the read model; nothing secret). */
export class GetSecondFactorStatusQuery extends Query<SecondFactorStatus> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
  ) {
    super();
  }
}
