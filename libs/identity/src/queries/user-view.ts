import { type Permission, permissionsOf, type Role } from '#warden/kernel';
import type { User } from '../domain/user.decider.js';
import type { UserState } from '../domain/user.events.js';

/** A dashboard user as the console and the CLI show it; never its password hash or sessions. */
export interface UserView {
  readonly id: string;
  readonly email: string | null;
  readonly orgId: string;
  readonly roles: readonly Role[];
  readonly permissions: readonly Permission[];
  readonly state: UserState;
}

export function toUserView(user: Pick<User, 'orgId' | 'email' | 'roles' | 'state'> & { id?: string; userId?: string }): UserView {
  return {
    id: user.userId ?? user.id!,
    email: user.email,
    orgId: user.orgId,
    roles: [...user.roles],
    permissions: permissionsOf(user.roles),
    state: user.state,
  };
}
