import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';

/** Delivery ids are derived from what caused them (kernel deterministicId): UUID-shaped, lower-case hex. */
export const DELIVERY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class RedeliverCallbackRequestDto {
  @ApiProperty({
    description: 'The delivery id (`deliveryId` of the list; the `Service-Delivery-Id` header of its attempts)',
    pattern: DELIVERY_ID.source,
    example: '4ec02b1e-73d4-86c0-9f23-cfa1f419dd4f',
  })
  @Matches(DELIVERY_ID, { message: 'expected a delivery id (8-4-4-4-12 lower-case hexadecimal digits)' })
  deliveryId!: string;
}
