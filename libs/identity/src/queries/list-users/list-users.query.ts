import { Query } from '@nestjs/cqrs';
import type { UserView } from '../user-view.js';

/** The organization's users, oldest first. */
export class ListUsersQuery extends Query<UserView[]> {
  constructor(readonly orgId: string) {
    super();
  }
}
