import { ApiPropertyOptional } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { IsNonEmptyString, WhenPresent } from '#warden/platform/http';

/** One of the two: a current code, or a recovery code (which is then spent). */
export class DisableSecondFactorRequestDto {
  @ApiPropertyOptional({ description: 'A current 6-digit code of the authenticator app', example: '123456', pattern: '^[0-9]{6}$' })
  @WhenPresent()
  @IsNonEmptyString()
  @Matches(/^\d{6}$/, { message: 'expected a 6-digit code' })
  code?: string;

  @ApiPropertyOptional({ description: 'One of the recovery codes, when the app is lost', example: 'k7m2-x9pq-4hta', maxLength: 64 })
  @WhenPresent()
  @IsNonEmptyString()
  @Matches(/^[\sA-Za-z0-9-]{1,64}$/, { message: 'expected a recovery code (letters, digits and dashes)' })
  recoveryCode?: string;
}
