import { ApiProperty } from '@nestjs/swagger';

export class SigningJwkDto {
  @ApiProperty({ enum: ['OKP'], description: 'Key type (RFC 8037)' })
  kty!: 'OKP';
  @ApiProperty({ enum: ['Ed25519'] })
  crv!: 'Ed25519';
  @ApiProperty({
    description: 'Key id: the `kid` of the Service-Signature header; the RFC 7638 thumbprint of the key',
    example: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
  })
  kid!: string;
  @ApiProperty({ description: 'The 32-byte Ed25519 public key, base64url', example: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' })
  x!: string;
  @ApiProperty({
    enum: ['active', 'rotated', 'retired'],
    description:
      '`active` signs now; `rotated` was replaced and still verifies until it is retired; `retired` (only with ' +
      '`include=retired`) verifies nothing new: accept it only for what it signed before, such as older audit checkpoints',
  })
  status!: 'active' | 'rotated' | 'retired';
}

export class SigningKeysResponseDto {
  @ApiProperty({
    type: [SigningJwkDto],
    description:
      'The key signing callbacks now first, then rotated-out keys that still verify until they are retired; with ' +
      '`include=retired`, the retired keys after them, the most recently created first',
  })
  keys!: SigningJwkDto[];
}
