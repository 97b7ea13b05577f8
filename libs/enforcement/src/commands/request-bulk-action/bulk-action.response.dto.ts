import { ApiProperty } from '@nestjs/swagger';

export class BulkActionResponseDto {
  @ApiProperty({ example: 'blk_FQjvqpimFxbzE063' })
  bulkActionId!: string;
  @ApiProperty({ enum: ['RUNNING', 'CANCELLED', 'COMPLETED'], description: 'RUNNING until every chunk is done (COMPLETED) or it is cancelled' })
  status!: 'RUNNING' | 'CANCELLED' | 'COMPLETED';
  @ApiProperty({ example: 'remove' })
  actionId!: string;
  @ApiProperty({ type: [String], example: ['spam'] })
  policyIds!: string[];
  @ApiProperty({ example: 'Spam campaign of 2026-03-01' })
  reason!: string;
  @ApiProperty({ description: 'Who asked: `user:<id>` of the console user', example: 'user:usr_3q2mYV0bH8kP1sXa' })
  requestedBy!: string;
  @ApiProperty({ format: 'date-time' })
  requestedAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it completed or was cancelled' })
  finishedAt!: string | null;
  @ApiProperty({ description: 'Unique items named' })
  items!: number;
  @ApiProperty({ description: 'Items worked through so far: executed + alreadyActioned + missing + failed' })
  processed!: number;
  @ApiProperty({ description: 'Items executed by this operation (a callback, strikes, their open jobs closed)' })
  executed!: number;
  @ApiProperty({ description: 'Items executed already with the same action, policies and reason: not acted on again' })
  alreadyActioned!: number;
  @ApiProperty({ description: 'Items not stored in the organization: never acted on' })
  missing!: number;
  @ApiProperty({ description: 'Items refused when executed: the catalog changed since the request (an archived action or policy)' })
  failed!: number;
  @ApiProperty({ description: 'Chunks of 100 items the operation is worked through in' })
  chunks!: number;
  @ApiProperty()
  chunksDone!: number;
}
