import { ApiProperty } from '@nestjs/swagger';

class HistoryItemRefDto {
  @ApiProperty({ example: 'post' })
  typeId!: string;

  @ApiProperty({ example: 'p-1' })
  id!: string;
}

export class HistoryEntryDto {
  @ApiProperty({ description: 'Position of the event in the log: the order of the history', example: 1042 })
  position!: number;

  @ApiProperty({ format: 'date-time' })
  occurredAt!: string;

  @ApiProperty({ description: 'The event type', example: 'ReviewJobDecided' })
  type!: string;

  @ApiProperty({ description: 'The stream it is on (the item, an evaluation, a review job, a callback delivery …)', example: 'review_job-acme:0b5d3f7e' })
  stream!: string;

  @ApiProperty({ description: "Who or what caused it: a console user's id, `api-key:<id>`, `cli`, or the module that reacted", example: 'user:01a2…' })
  actor!: string;

  @ApiProperty({ description: 'One line that says what happened', example: 'Decided CUSTOM_ACTION: remove' })
  summary!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The event's data in its current shape; personal fields opened, null once erased (GDPR deletion)",
  })
  data!: Record<string, unknown>;
}

export class ItemHistoryResponseDto {
  @ApiProperty({ type: HistoryItemRefDto })
  item!: HistoryItemRefDto;

  @ApiProperty({ type: [HistoryEntryDto] })
  entries!: HistoryEntryDto[];

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The offset of the next page; null at the end (and for a page asked for by `after`)',
    example: null,
  })
  next!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The log position to pass as `after` for the next page; null at the end', example: null })
  nextAfter!: number | null;
}
