import { ApiProperty } from '@nestjs/swagger';
import { IsArray, IsString } from 'class-validator';
import { ROLES } from '../../domain/access.js';

export class InviteUserRequestDto {
  @ApiProperty({ description: "The person's email address (compared case-insensitively, unique in the deployment)", example: 'ann@example.com' })
  @IsString({ message: 'expected a string' })
  email!: string;
  @ApiProperty({ enum: ROLES, isArray: true, minItems: 1, example: ['MODERATOR'] })
  @IsArray({ message: 'expected an array of roles' })
  roles!: string[];
}
