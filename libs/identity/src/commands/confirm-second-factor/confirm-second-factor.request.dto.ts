import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { IsNonEmptyString } from '#warden/platform/http';

export class ConfirmSecondFactorRequestDto {
  @ApiProperty({ description: 'The current 6-digit code of the authenticator app', example: '123456', pattern: '^[0-9]{6}$' })
  @IsNonEmptyString()
  @Matches(/^\d{6}$/, { message: 'expected a 6-digit code' })
  code!: string;
}

export class RecoveryCodesResponseDto {
  @ApiProperty({
    description: 'Ten single-use recovery codes. Shown once (only their hashes are kept): store them somewhere safe.',
    type: [String],
    example: ['k7m2-x9pq-4hta', 'c3vb-8wne-r6js'],
  })
  recoveryCodes!: string[];
}
