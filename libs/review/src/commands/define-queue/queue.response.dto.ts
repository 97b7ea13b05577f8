import { ApiProperty } from '@nestjs/swagger';

/** A queue as its definition stands (the file's defaults filled in). */
export class QueueDefinitionResponseDto {
  @ApiProperty({ example: 'hate-speech' })
  id!: string;
  @ApiProperty({ example: 'Hate speech' })
  name!: string;
  @ApiProperty()
  isDefault!: boolean;
  @ApiProperty()
  isAppealsDefault!: boolean;
  @ApiProperty({ example: 600 })
  lockTimeoutSeconds!: number;
  @ApiProperty({ enum: ['FIFO', 'PRIORITY'] })
  order!: 'FIFO' | 'PRIORITY';
  @ApiProperty({ type: Number, nullable: true })
  autoCloseAfterDays!: number | null;
}
