import { Query } from '@nestjs/cqrs';
import type { UserView } from '../user-view.js';

/** The user an address belongs to (compared case-insensitively), in any organization, or null. */
export class FindUserByEmailQuery extends Query<UserView | null> {
  constructor(readonly email: string) {
    super();
  }
}
