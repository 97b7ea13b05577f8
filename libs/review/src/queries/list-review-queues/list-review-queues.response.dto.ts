import { ApiProperty } from '@nestjs/swagger';

export class ReviewQueueSummaryDto {
  @ApiProperty({ example: 'default' })
  id!: string;

  @ApiProperty({ example: 'Default' })
  name!: string;

  @ApiProperty({ enum: ['FIFO', 'PRIORITY'], description: 'FIFO: oldest first. PRIORITY: more reports, more severe policies, then older first' })
  order!: 'FIFO' | 'PRIORITY';

  @ApiProperty({ type: 'integer', example: 600, description: 'How long a claim holds a job unless renewed' })
  lockTimeoutSeconds!: number;

  @ApiProperty({ description: 'Where jobs go when no routing rule picks a queue' })
  isDefault!: boolean;

  @ApiProperty({ description: 'Where appeals go by default' })
  isAppealsDefault!: boolean;

  @ApiProperty({ type: Number, nullable: true, description: 'Jobs waiting longer are closed with AUTOMATIC_CLOSE; null: never' })
  autoCloseAfterDays!: number | null;

  @ApiProperty({
    enum: ['file', 'console', 'builtin'],
    description:
      "Where the queue is changed. `file`: its organization's configuration file defines it and the console's edits are refused (409); `console`: made in the console, or the file hands queues to the console (`management: { queues: console }`); `builtin`: a built-in queue, not editable",
  })
  managedBy!: 'file' | 'console' | 'builtin';

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'acme.yaml',
    description: 'The configuration file that defined it last, where recorded (applies before this field was recorded: null)',
  })
  file!: string | null;

  @ApiProperty({
    type: 'integer',
    description: 'Jobs waiting for a moderator: pending (counted up to 10,000, see `pendingExact`), assigned to someone, or whose lock expired',
  })
  pending!: number;

  @ApiProperty({ description: 'False when more than 10,000 jobs are pending: `pending` is then a lower bound' })
  pendingExact!: boolean;

  @ApiProperty({ type: 'integer', description: 'Jobs held under a live lock' })
  locked!: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the oldest waiting job opened' })
  oldestPendingAt!: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Its age in seconds' })
  oldestPendingAgeSeconds!: number | null;
}

export class ReviewQueueListResponseDto {
  @ApiProperty({ type: [ReviewQueueSummaryDto] })
  queues!: ReviewQueueSummaryDto[];
}
