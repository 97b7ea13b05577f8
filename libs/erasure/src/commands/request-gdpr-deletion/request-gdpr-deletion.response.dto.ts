import { ApiProperty } from '@nestjs/swagger';

export class RequestGdprDeletionResponseDto {
  @ApiProperty({
    description: "The deletion's id, for GET /api/v1/gdpr/delete/{requestId}: the same for the same user every time",
    example: '0b5d3f7e-2a41-8c1d-9e55-3f0a7c2b6d14',
  })
  requestId!: string;
}
