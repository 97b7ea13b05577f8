import { ApiProperty } from '@nestjs/swagger';

export class SecondFactorStatusResponseDto {
  @ApiProperty({ enum: ['none', 'pending', 'active'], description: '`pending`: enrollment started, not yet confirmed with a code' })
  status!: 'none' | 'pending' | 'active';
  @ApiProperty({ description: 'Recovery codes not used yet', example: 10 })
  recoveryCodesRemaining!: number;
}
