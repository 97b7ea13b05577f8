import { ApiProperty } from '@nestjs/swagger';

export class ApiKeyDto {
  @ApiProperty({ description: 'Key id', example: 'key_Q2x1c3Rlcj' })
  id!: string;
  @ApiProperty({ description: 'A name people gave the key', nullable: true, type: String })
  name!: string | null;
  @ApiProperty({ description: 'The team the key is scoped to', nullable: true, type: String })
  team!: string | null;
  @ApiProperty({ description: 'The first characters of the key, to tell keys apart (the key itself is never shown again)' })
  prefix!: string;
  @ApiProperty({
    enum: ['active', 'rotated', 'revoked'],
    description: '`rotated`: replaced by `replacedBy` and no longer accepted; `revoked`: no longer accepted',
  })
  status!: 'active' | 'rotated' | 'revoked';
  @ApiProperty({ description: 'When the key was created (ISO 8601)' })
  createdAt!: string;
  @ApiProperty({ description: 'When the key was rotated or revoked (ISO 8601)', nullable: true, type: String })
  deactivatedAt!: string | null;
  @ApiProperty({ description: 'The key that replaced this one at rotation', nullable: true, type: String })
  replacedBy!: string | null;
  @ApiProperty({
    description: 'Last accepted request with this key (ISO 8601; recorded in batches, up to about 10 s late)',
    nullable: true,
    type: String,
  })
  lastUsedAt!: string | null;
}

export class ApiKeyListResponseDto {
  @ApiProperty({ type: [ApiKeyDto], description: "The organization's keys, oldest first" })
  keys!: ApiKeyDto[];
}
