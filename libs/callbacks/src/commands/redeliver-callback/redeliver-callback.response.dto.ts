import { ApiProperty } from '@nestjs/swagger';

export class RedeliveryResponseDto {
  @ApiProperty({ description: 'The delivery sent again: same id and body', example: '4ec02b1e-73d4-86c0-9f23-cfa1f419dd4f' })
  deliveryId!: string;
  @ApiProperty({ type: 'integer', minimum: 2, example: 2, description: 'Its new attempt cycle (1 was the first; +1 per redelivery)' })
  cycle!: number;
}
