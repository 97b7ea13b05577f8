import { ApiProperty } from '@nestjs/swagger';
import { PERMISSIONS, type Permission, type Role, ROLES } from '../../domain/access.js';

export class UserDto {
  @ApiProperty({ example: 'usr_Q2x1c3Rlcj' })
  id!: string;
  @ApiProperty({ example: 'ann@example.com', nullable: true, type: String, description: "Null once the person's data was erased" })
  email!: string | null;
  @ApiProperty({ enum: ROLES, isArray: true })
  roles!: Role[];
  @ApiProperty({ enum: PERMISSIONS, isArray: true, description: 'What the roles allow' })
  permissions!: Permission[];
  @ApiProperty({ enum: ['invited', 'active', 'disabled'], description: '`invited`: has not set a password through the invitation yet' })
  state!: 'invited' | 'active' | 'disabled';
  @ApiProperty({
    description:
      '`false`: no password is set, so the user cannot sign in with one: an `invited` user until the invitation is accepted, ' +
      'or an `active` one made by `warden user create` and not yet given one (`user set-password`), or provisioned by SSO',
  })
  hasPassword!: boolean;
}

export class UserListResponseDto {
  @ApiProperty({ type: [UserDto], description: "The organization's dashboard users, oldest first" })
  users!: UserDto[];
}

/** The console's view of a user: the organization is the caller's own, so it is left out. */
export function toUserDto(user: {
  id: string;
  email: string | null;
  roles: readonly Role[];
  permissions: readonly Permission[];
  state: UserDto['state'];
  hasPassword: boolean;
}): UserDto {
  return { id: user.id, email: user.email, roles: [...user.roles], permissions: [...user.permissions], state: user.state, hasPassword: user.hasPassword };
}
