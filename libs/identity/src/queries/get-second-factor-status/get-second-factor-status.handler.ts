import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '#warden/readstore';
import { READ_STORE } from '#warden/storage';
import { SECOND_FACTORS, type SecondFactorDoc, secondFactorDocId } from '../../projections/second-factor.read-model.js';
import { GetSecondFactorStatusQuery, type SecondFactorStatus } from './get-second-factor-status.query.js';

@QueryHandler(GetSecondFactorStatusQuery)
export class GetSecondFactorStatusHandler implements IQueryHandler<GetSecondFactorStatusQuery> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute(query: GetSecondFactorStatusQuery): Promise<SecondFactorStatus> {
    const doc = await this.readStore.get<SecondFactorDoc>(SECOND_FACTORS, secondFactorDocId(query.orgId, query.userId));
    return doc ? { status: doc.status, recoveryCodesRemaining: doc.recoveryCodesRemaining } : { status: 'none', recoveryCodesRemaining: 0 };
  }
}
