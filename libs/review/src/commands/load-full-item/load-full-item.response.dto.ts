import { ApiProperty } from '@nestjs/swagger';

export class FullItemOutcomeDto {
  @ApiProperty() id!: string;
  @ApiProperty() typeId!: string;
  @ApiProperty({ type: String, nullable: true, description: "The RELATED_ITEM field of the job's item that names it; null for the job's item" }) field!:
    string | null;
  @ApiProperty({ enum: ['fetched', 'cached', 'failed'], description: 'cached: answered within the cache time of an earlier fetch, without a request' })
  status!: 'fetched' | 'cached' | 'failed';
  @ApiProperty({ type: Number, nullable: true, description: 'The item version the whole item is recorded as (source partial-fetch)' }) version!: number | null;
  @ApiProperty({ type: String, nullable: true }) typeVersion!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "The whole item's data (personal data, shown to you only); null when it failed",
  })
  data!: Record<string, unknown> | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why it failed: timeout, an error status, an address the outbound guard refuses, an invalid answer, no endpoint configured …',
  })
  reason!: string | null;
}

export class LoadFullItemResponseDto {
  @ApiProperty({ type: FullItemOutcomeDto }) item!: FullItemOutcomeDto;
  @ApiProperty({ type: [FullItemOutcomeDto], description: 'Related items (RELATED_ITEM fields, the creator among them) Warden had never received' })
  related!: FullItemOutcomeDto[];
}
