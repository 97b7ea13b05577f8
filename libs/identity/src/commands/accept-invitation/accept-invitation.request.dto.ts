import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';

export class AcceptInvitationRequestDto {
  @ApiProperty({ description: 'The token: the part of the invitation link after `#`' })
  @IsString({ message: 'expected a string' })
  token!: string;
  @ApiProperty({
    description:
      'The new password: at least 12 characters, at most 1024 bytes, no control characters; not a common or breached password, ' +
      'a repeated or sequential pattern, or one built on the email address (400 on /password saying which)',
    format: 'password',
  })
  @IsString({ message: 'expected a string' })
  password!: string;
}
