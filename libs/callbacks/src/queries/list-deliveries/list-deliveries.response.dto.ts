import { ApiProperty } from '@nestjs/swagger';

class DeliveryItemDto {
  @ApiProperty()
  id!: string;
  @ApiProperty()
  typeId!: string;
}

export class DeliveryDto {
  @ApiProperty({ description: 'The Service-Delivery-Id header of every attempt; stable across retries and redeliveries' })
  deliveryId!: string;
  @ApiProperty({ enum: ['action', 'appeal'] })
  kind!: string;
  @ApiProperty({ enum: ['rule', 'decision', 'strike-threshold', 'appeal-decision', 'post-actions'], description: 'What triggered it' })
  trigger!: string;
  @ApiProperty({ type: String, nullable: true })
  actionId!: string | null;
  @ApiProperty({ type: String, nullable: true })
  appealId!: string | null;
  @ApiProperty({ type: DeliveryItemDto })
  item!: DeliveryItemDto;
  @ApiProperty({ type: String, nullable: true, description: 'The callback URL without its query string; null when none is configured' })
  destination!: string | null;
  @ApiProperty({ enum: ['pending', 'failed', 'dead', 'delivered'] })
  status!: string;
  @ApiProperty({ description: 'Attempt cycle: 1, then +1 per redelivery' })
  cycle!: number;
  @ApiProperty({ description: 'Attempts made in this cycle (at most 1 + the retries of WARDEN_CALLBACK_RETRY_SCHEDULE)' })
  attempts!: number;
  @ApiProperty({ description: 'Attempts made over all cycles' })
  totalAttempts!: number;
  @ApiProperty({ type: String, nullable: true, description: 'When the next attempt is due (ISO 8601); null once delivered or dead' })
  nextAttemptAt!: string | null;
  @ApiProperty({ type: Number, nullable: true, description: "The receiver's last HTTP status; null when no response came" })
  lastStatus!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the last attempt failed (or why it was dead-lettered)' })
  lastError!: string | null;
  @ApiProperty()
  requestedAt!: string;
  @ApiProperty()
  updatedAt!: string;
  @ApiProperty({ type: String, nullable: true })
  deliveredAt!: string | null;
  @ApiProperty({ type: String, nullable: true })
  deadLetteredAt!: string | null;
}

export class ListDeliveriesResponseDto {
  @ApiProperty({ type: [DeliveryDto], description: 'Newest request first' })
  deliveries!: DeliveryDto[];
  @ApiProperty({ description: 'Deliveries matching the filter, counted up to 10,000 (see `totalExact`)' })
  total!: number;
  @ApiProperty({ description: 'False when more than `total` (10,000) match: only the newest 10,000 are listed (`offset` at most 10,000)' })
  totalExact!: boolean;
  @ApiProperty()
  limit!: number;
  @ApiProperty()
  offset!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The `offset` of the next page; null on the last page, and past the newest 10,000 deliveries',
  })
  nextOffset!: number | null;
}
