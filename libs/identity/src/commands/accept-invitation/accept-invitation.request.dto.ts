import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';

export class AcceptInvitationRequestDto {
  @ApiProperty({ description: 'The token: the part of the invitation link after `#`' })
  @IsString({ message: 'expected a string' })
  token!: string;
  @ApiProperty({ description: 'The new password (at least 12 characters, at most 1024 bytes)', format: 'password' })
  @IsString({ message: 'expected a string' })
  password!: string;
}
