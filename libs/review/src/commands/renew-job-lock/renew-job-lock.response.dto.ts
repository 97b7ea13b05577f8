import { ApiProperty } from '@nestjs/swagger';

export class RenewedLockResponseDto {
  @ApiProperty({ format: 'date-time', description: "The lock now ends then (the queue's lockTimeoutSeconds from now) unless renewed again" })
  expiresAt!: string;
}
