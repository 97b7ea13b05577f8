import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';

/**
 * One entry of the configuration file's `queues:` (docs/configuration-as-code.md, "The `queues:` and `routingRules:` sections"). The fields are only let through
 * here; the catalog checks them with the file's own schema (one set of rules, one set of messages).
 */
export class QueueDefinitionRequestDto {
  @ApiProperty({ description: 'Shown to moderators', example: 'Hate speech' })
  @Allow()
  name!: string;

  @ApiPropertyOptional({ description: 'Where jobs go when no routing rule picks a queue; at most one queue is. Default false' })
  @Allow()
  isDefault?: boolean;

  @ApiPropertyOptional({ description: 'Where appeals go by default; at most one queue is. Default false' })
  @Allow()
  isAppealsDefault?: boolean;

  @ApiPropertyOptional({ description: 'How long a claim holds a job unless renewed. Default 600', minimum: 1, maximum: 86_400, example: 600 })
  @Allow()
  lockTimeoutSeconds?: number;

  @ApiPropertyOptional({
    enum: ['FIFO', 'PRIORITY'],
    description: 'FIFO: oldest first. PRIORITY: more reports, more severe policies, then older first. Default FIFO',
  })
  @Allow()
  order?: string;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: 36_500,
    description: 'Jobs waiting longer are closed with AUTOMATIC_CLOSE; null: never. Default null',
  })
  @Allow()
  autoCloseAfterDays?: number | null;
}

export class CreateQueueRequestDto extends QueueDefinitionRequestDto {
  @ApiPropertyOptional({
    description:
      'The queue id (no whitespace; `child-safety` is reserved). Left out: derived from the name (`Hate speech` → `hate-speech`, suffixed when taken)',
    example: 'hate-speech',
  })
  @Allow()
  id?: string;
}
