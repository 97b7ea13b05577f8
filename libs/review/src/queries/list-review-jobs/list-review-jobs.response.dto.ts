import { ApiProperty } from '@nestjs/swagger';
import { DECISION_TYPES, type DecisionType, ENQUEUE_SOURCES, type EnqueueSource } from '../../domain/review-job.events.js';
import type { JobState, ReviewJobDoc } from '../../projections/review-jobs.read-model.js';
import { ApiNullableObject } from '../api-nullable-object.decorator.js';
import { JOB_STATES } from './list-review-jobs.request.dto.js';

export class JobItemRefDto {
  @ApiProperty({ example: 'post-1' })
  id!: string;

  @ApiProperty({ example: 'post' })
  typeId!: string;

  @ApiProperty({ example: 'Post' })
  typeName!: string;
}

export class JobLockInfoDto {
  @ApiProperty({ description: 'The holder (user id)' })
  moderatorId!: string;

  @ApiProperty({ format: 'date-time', description: 'In the past: the lock expired and anyone may claim the job' })
  expiresAt!: string;
}

export class JobDecisionSummaryDto {
  @ApiProperty()
  decisionId!: string;

  @ApiProperty({ enum: DECISION_TYPES })
  type!: DecisionType;

  @ApiProperty({ type: String, nullable: true, description: 'null for AUTOMATIC_CLOSE' })
  actorId!: string | null;

  @ApiProperty({ format: 'date-time' })
  decidedAt!: string;
}

/** The schemas only nullable properties of a summary name (ApiNullableObject). */
export const JOB_SUMMARY_NULLABLE_MODELS = [JobLockInfoDto, JobDecisionSummaryDto];

export class ReviewJobSummaryDto {
  @ApiProperty()
  jobId!: string;

  @ApiProperty({ example: 'default' })
  queueId!: string;

  @ApiProperty({ enum: JOB_STATES })
  state!: JobState;

  @ApiProperty({ type: JobItemRefDto })
  item!: JobItemRefDto;

  @ApiProperty({ enum: ENQUEUE_SOURCES, description: 'How the job was first enqueued' })
  source!: EnqueueSource;

  @ApiProperty({ type: 'integer' })
  reportCount!: number;

  @ApiProperty({ format: 'date-time' })
  openedAt!: string;

  @ApiNullableObject(JobLockInfoDto)
  lock!: JobLockInfoDto | null;

  @ApiProperty({ type: String, nullable: true, description: 'The moderator the job is reserved for' })
  assignedTo!: string | null;

  @ApiNullableObject(JobDecisionSummaryDto)
  decision!: JobDecisionSummaryDto | null;
}

export class ReviewJobListResponseDto {
  @ApiProperty({ type: [ReviewJobSummaryDto], description: 'Oldest first' })
  jobs!: ReviewJobSummaryDto[];

  @ApiProperty({ type: 'integer', description: 'Jobs matching the filter, on every page, counted up to 10,000 (see `totalExact`)' })
  total!: number;

  @ApiProperty({
    description: 'False when more than `total` (10,000) match: pages reach the first 10,000; narrow the filter (openedBefore, state) for the rest',
  })
  totalExact!: boolean;

  @ApiProperty({ type: 'integer' })
  page!: number;

  @ApiProperty({ type: 'integer' })
  pageSize!: number;
}

export function toJobSummaryDto(doc: ReviewJobDoc): ReviewJobSummaryDto {
  return {
    jobId: doc.jobId,
    queueId: doc.queueId,
    state: doc.state,
    item: doc.item,
    source: doc.source,
    reportCount: doc.reportCount,
    openedAt: doc.openedAt,
    lock: doc.lockedBy !== null && doc.lockExpiresAt !== null ? { moderatorId: doc.lockedBy, expiresAt: doc.lockExpiresAt } : null,
    assignedTo: doc.assignedTo,
    decision: doc.decision
      ? { decisionId: doc.decision.decisionId, type: doc.decision.type, actorId: doc.decision.actorId, decidedAt: doc.decision.decidedAt }
      : null,
  };
}
