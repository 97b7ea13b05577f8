import { ApiProperty } from '@nestjs/swagger';
import { UserDto } from '../../queries/list-users/list-users.response.dto.js';

export class InvitationResponseDto {
  @ApiProperty({ type: UserDto })
  user!: UserDto;
  @ApiProperty({
    description: 'The one-time link that lets the person set a password: `<public URL>/console/invite#<token>`. Shown once; single use.',
    example: 'https://warden.example/console/invite#acme.usr_Q2x1c3Rlcj.8f3k…',
  })
  invitationUrl!: string;
  @ApiProperty({ description: 'When the link stops working (72 hours; ISO 8601)' })
  expiresAt!: string;
}
