import { ApiProperty } from '@nestjs/swagger';
import { IsArray } from 'class-validator';
import { ROLES } from '../../domain/access.js';

export class ChangeUserRolesRequestDto {
  @ApiProperty({ enum: ROLES, isArray: true, minItems: 1, example: ['MODERATOR', 'ANALYST'], description: 'The roles the user has from now on' })
  @IsArray({ message: 'expected an array of roles' })
  roles!: string[];
}
