import { Query } from '@nestjs/cqrs';
import type { UserView } from '../user-view.js';

/** One user of the organization (404 when it has none with this id). */
export class GetUserQuery extends Query<UserView> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
  ) {
    super();
  }
}
