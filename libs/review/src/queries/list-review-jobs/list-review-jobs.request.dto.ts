import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { QueryInteger } from '#warden/platform/http';
import type { JobState } from '../../projections/review-jobs.read-model.js';

export const JOB_STATES: readonly JobState[] = ['PENDING', 'LOCKED', 'ASSIGNED', 'CLOSED'];

export class ListReviewJobsRequestDto {
  @ApiPropertyOptional({ example: 'default', description: 'Only this queue’s jobs (required without VIEW_CHILD_SAFETY_DATA)' })
  @IsOptional()
  @IsString({ message: 'expected a queue id' })
  queueId?: string;

  @ApiPropertyOptional({
    enum: JOB_STATES,
    description: 'Only jobs in this state. LOCKED includes jobs whose lock expired (`lock.expiresAt` in the past): anyone may claim those',
  })
  @IsOptional()
  @IsIn(JOB_STATES, { message: `state must be one of ${JOB_STATES.join(', ')}` })
  state?: JobState;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-26T09:00:00Z',
    description: 'Only jobs opened before this time (a manager’s “older than a day”: now minus a day). ISO 8601 with a time part',
  })
  @IsOptional()
  @IsString({ message: 'expected an ISO 8601 datetime with a time part' })
  openedBefore?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1 })
  @IsOptional()
  @QueryInteger(1)
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @QueryInteger(1, 200)
  pageSize?: number;
}
