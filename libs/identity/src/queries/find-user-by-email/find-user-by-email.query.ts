import { Query } from '@nestjs/cqrs';
import type { UserView } from '../user-view.js';

/**
 * The user an address belongs to (compared case-insensitively), in any organization, or null.
 * With `orgId`: that organization's user with the address, also one invited while another
 * organization holds it.
 */
export class FindUserByEmailQuery extends Query<UserView | null> {
  constructor(
    readonly email: string,
    readonly orgId?: string,
  ) {
    super();
  }
}
