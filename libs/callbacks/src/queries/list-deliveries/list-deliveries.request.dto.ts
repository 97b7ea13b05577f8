import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { QueryInteger } from '#warden/platform/http';
import type { ListedStatus } from '../../projections/callback-deliveries.read-model.js';
import { LISTED_DELIVERIES } from './list-deliveries.query.js';

export const LISTED_STATUSES: readonly ListedStatus[] = ['pending', 'failed', 'dead', 'delivered'];

export class ListDeliveriesRequestDto {
  @ApiPropertyOptional({
    enum: LISTED_STATUSES,
    description:
      '`pending`: an attempt is due now or is under way, none has failed yet in this cycle; `failed`: an attempt ' +
      'failed and a retry is scheduled (`nextAttemptAt`); `dead`: dead-lettered after the last retry (redeliver with ' +
      'the CLI or the console); `delivered`: a 2xx was received. All statuses when absent.',
  })
  @IsOptional()
  @IsIn(LISTED_STATUSES, { message: `status must be one of ${LISTED_STATUSES.join(', ')}` })
  status?: ListedStatus;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'Page size' })
  @IsOptional()
  @QueryInteger(1, 100)
  limit?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: LISTED_DELIVERIES,
    default: 0,
    description: "Deliveries to skip: pass the previous page's `nextOffset`. The newest 10,000 are listed; narrow with `status` past them",
  })
  @IsOptional()
  @QueryInteger(0, LISTED_DELIVERIES)
  offset?: number;
}
