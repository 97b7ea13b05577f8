import { ApiProperty } from '@nestjs/swagger';

/** A key just made (created or rotated in): the only response that ever carries the key itself. */
export class CreatedApiKeyResponseDto {
  @ApiProperty({ description: 'Key id', example: 'key_Q2x1c3Rlcj' })
  id!: string;
  @ApiProperty({ description: 'The first characters of the key, as listed' })
  prefix!: string;
  @ApiProperty({ description: 'The key: send it as X-API-KEY. Shown this once; only its hash is stored.' })
  key!: string;
}
