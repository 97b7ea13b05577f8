import { ApiProperty } from '@nestjs/swagger';
import type { ReviewJobView } from './review-job.view.js';

/** The job view; its enriched parts (spec 1.8) are documented by the job-view work. */
export class ReviewJobResponseDto {
  @ApiProperty()
  jobId!: string;

  @ApiProperty({ example: 'default' })
  queueId!: string;

  @ApiProperty({ enum: ['PENDING', 'LOCKED', 'ASSIGNED', 'CLOSED'] })
  state!: ReviewJobView['state'];

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'id, typeId, typeName, version' })
  item!: ReviewJobView['item'];

  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, description: 'moderatorId, expiresAt (in the past: expired)' })
  lock!: ReviewJobView['lock'];

  @ApiProperty({ type: String, nullable: true })
  assignedTo!: string | null;

  [enriched: string]: unknown;
}
