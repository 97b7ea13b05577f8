import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WhenPresent } from '#warden/platform/http';
import { IsString } from 'class-validator';
import { PERMISSIONS, ROLES } from '../../domain/access.js';

export class LoginRequestDto {
  @ApiProperty({ description: 'The account email (compared case-insensitively)', example: 'ann@example.com' })
  @IsString()
  email!: string;
  @ApiProperty({ description: 'The password', example: 'correct horse battery staple', format: 'password' })
  @IsString()
  password!: string;
  @ApiPropertyOptional({
    description:
      'The current 6-digit code of the authenticator app, for a user with a second factor (without it such a login is a 401 /errors/second-factor-required)',
    example: '123456',
  })
  @WhenPresent()
  @IsString()
  totp?: string;
  @ApiPropertyOptional({ description: 'A recovery code instead of `totp` (each works once)', example: 'k7m2-x9pq-4hta' })
  @WhenPresent()
  @IsString()
  recoveryCode?: string;
}

export class ConsoleUserDto {
  @ApiProperty({ example: 'usr_Q2x1c3Rlcj' })
  id!: string;
  @ApiProperty({ example: 'ann@example.com', nullable: true, type: String })
  email!: string | null;
  @ApiProperty({ example: 'acme' })
  orgId!: string;
  @ApiProperty({ enum: ROLES, isArray: true })
  roles!: string[];
  @ApiProperty({ enum: PERMISSIONS, isArray: true, description: 'What the roles allow (docs/console-access.md, "Roles and what they may do")' })
  permissions!: string[];
}

export class ConsoleSessionResponseDto {
  @ApiProperty({ type: ConsoleUserDto })
  user!: ConsoleUserDto;
  @ApiProperty({ description: 'Send it in the X-CSRF-Token header of every mutating console request' })
  csrfToken!: string;
  @ApiPropertyOptional({
    description:
      'In GET me: true when the organization requires a second factor and this user has none yet; the session can then ' +
      'only enroll one (/api/console/v1/me/second-factor), read me and sign out, and `permissions` is cut to USE_CONSOLE',
  })
  secondFactorEnrollmentRequired?: boolean;
}

/** GET session: whether this browser is signed in, without a 401 for the plain "no" a sign-in page starts with. */
export class ConsoleSessionStateDto {
  @ApiProperty({ description: 'Whether the request carried a valid session cookie' })
  signedIn!: boolean;
  @ApiPropertyOptional({ type: ConsoleUserDto, description: 'When signed in: the user' })
  user?: ConsoleUserDto;
  @ApiPropertyOptional({ description: 'When signed in: send it in the X-CSRF-Token header of every mutating console request' })
  csrfToken?: string;
  @ApiPropertyOptional({ description: 'When signed in: as in GET me' })
  secondFactorEnrollmentRequired?: boolean;
}
