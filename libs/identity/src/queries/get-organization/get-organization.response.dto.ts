import { ApiProperty } from '@nestjs/swagger';

export class CallingApiKeyDto {
  @ApiProperty({ description: 'Id of the API key that made the request', example: 'key_Q2x1c3Rlcj' })
  id!: string;
  @ApiProperty({ description: 'Team the key is scoped to', nullable: true, type: String })
  team!: string | null;
}

export class OrganizationResponseDto {
  @ApiProperty({ description: 'Organization id', example: 'acme' })
  id!: string;
  @ApiProperty({ description: 'Display name', example: 'Acme' })
  name!: string;
  @ApiProperty({ description: 'When the organization was created (ISO 8601)', example: '2026-01-01T00:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({ type: CallingApiKeyDto })
  apiKey!: CallingApiKeyDto;
}
