import { ApiProperty } from '@nestjs/swagger';

export class ErasedCountsDto {
  @ApiProperty({ description: "Data keys forgotten: 1 once anything of the user's was sealed, else 0", example: 1 })
  dataKeys!: number;

  @ApiProperty({ description: 'Items whose data was sealed under the user (those they created, and their user item)', example: 12 })
  items!: number;

  @ApiProperty({ description: 'Reports the user filed (their reasons and context items)', example: 3 })
  reports!: number;

  @ApiProperty({ description: 'Appeals the user submitted (their reasons and the data they sent)', example: 1 })
  appeals!: number;

  @ApiProperty({ description: "Open review jobs of the user's items closed with AUTOMATIC_CLOSE", example: 2 })
  reviewJobsClosed!: number;

  @ApiProperty({ description: "The same person's console account, named by `consoleEmail`: disabled and its email erased (0 or 1)", example: 0 })
  consoleAccounts!: number;
}

export class GdprDeletionResponseDto {
  @ApiProperty({ example: '0b5d3f7e-2a41-8c1d-9e55-3f0a7c2b6d14' })
  requestId!: string;

  @ApiProperty({ enum: ['PENDING', 'COMPLETED'], description: 'PENDING until the worker has erased the data' })
  state!: 'PENDING' | 'COMPLETED';

  @ApiProperty({ format: 'date-time', example: '2026-03-01T10:00:00.000Z' })
  requestedAt!: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: '2026-03-01T10:00:01.250Z' })
  completedAt!: string | null;

  @ApiProperty({ type: ErasedCountsDto, description: 'What was erased: all zero while PENDING' })
  erased!: ErasedCountsDto;
}
