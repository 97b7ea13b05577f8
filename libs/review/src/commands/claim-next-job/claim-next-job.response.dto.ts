import { ApiProperty } from '@nestjs/swagger';
import { ReviewJobResponseDto } from '../../queries/get-review-job/review-job.response.dto.js';
import type { ReviewJobView } from '../../queries/get-review-job/review-job.view.js';

export class JobLockDto {
  @ApiProperty({ description: 'Send it with renew, release, skip and the decision; shown once', example: 'p3V0Yy1sb2NrLXRva2VuLWV4YW1wbGU' })
  token!: string;

  @ApiProperty({ format: 'date-time', description: 'The lock ends then unless renewed' })
  expiresAt!: string;
}

export class ClaimedJobResponseDto {
  @ApiProperty({ type: ReviewJobResponseDto, description: 'The job, as GET /api/console/v1/jobs/{jobId} shows it' })
  job!: ReviewJobView;

  @ApiProperty({ type: JobLockDto })
  lock!: JobLockDto;
}
