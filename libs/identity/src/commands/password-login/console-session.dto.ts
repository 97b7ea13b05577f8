import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { PERMISSIONS, ROLES } from '#warden/kernel';

export class LoginRequestDto {
  @ApiProperty({ description: 'The account email (compared case-insensitively)', example: 'ann@example.com' })
  @IsString()
  email!: string;
  @ApiProperty({ description: 'The password', example: 'correct horse battery staple', format: 'password' })
  @IsString()
  password!: string;
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
  @ApiProperty({ enum: PERMISSIONS, isArray: true, description: 'What the roles allow (the table of interface spec 5.6)' })
  permissions!: string[];
}

export class ConsoleSessionResponseDto {
  @ApiProperty({ type: ConsoleUserDto })
  user!: ConsoleUserDto;
  @ApiProperty({ description: 'Send it in the X-CSRF-Token header of every mutating console request' })
  csrfToken!: string;
}
