import { type Permission, permissionsOf, type Role } from '../domain/access.js';
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
  /**
   * Whether the user has a password: an `active` user without one (made by `user create` and never
   * given one, or provisioned by SSO) cannot sign in with a password, and lists say so.
   */
  readonly hasPassword: boolean;
}

/** From the aggregate (its password hash) or the users read model (`hasPassword`). */
export function toUserView(
  user: Pick<User, 'orgId' | 'email' | 'roles' | 'state'> & { id?: string; userId?: string } & ({ passwordHash: string | null } | { hasPassword: boolean }),
): UserView {
  return {
    id: user.userId ?? user.id!,
    email: user.email,
    orgId: user.orgId,
    roles: [...user.roles],
    permissions: permissionsOf(user.roles),
    state: user.state,
    hasPassword: 'hasPassword' in user ? user.hasPassword : user.passwordHash !== null,
  };
}
