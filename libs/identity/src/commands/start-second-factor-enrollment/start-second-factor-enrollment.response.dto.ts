import { ApiProperty } from '@nestjs/swagger';

export class SecondFactorEnrollmentResponseDto {
  @ApiProperty({
    description: 'The otpauth:// URI for an authenticator app (render it as a QR code). Shown once: the secret is stored sealed.',
    example: 'otpauth://totp/Warden:ana%40acme.example?issuer=Warden&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
  })
  otpauthUri!: string;
  @ApiProperty({ description: 'The same secret in base32, for entering by hand', example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' })
  secret!: string;
}
