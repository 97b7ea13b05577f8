import { ApiProperty } from '@nestjs/swagger';
import { IsNonEmptyString } from '#warden/platform/http';

/** The token claim-next returned: proof that the caller holds the lock. */
export class LockTokenRequestDto {
  @ApiProperty({ description: 'The `lock.token` the claim returned', example: 'p3V0Yy1sb2NrLXRva2VuLWV4YW1wbGU' })
  @IsNonEmptyString()
  lockToken!: string;
}
