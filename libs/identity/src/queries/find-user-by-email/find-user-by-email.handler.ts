import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { UserDirectory } from '../../user-directory.js';
import { toUserView, type UserView } from '../user-view.js';
import { FindUserByEmailQuery } from './find-user-by-email.query.js';

@QueryHandler(FindUserByEmailQuery)
export class FindUserByEmailHandler implements IQueryHandler<FindUserByEmailQuery> {
  constructor(private readonly users: UserDirectory) {}

  async execute(query: FindUserByEmailQuery): Promise<UserView | null> {
    const user = query.orgId === undefined ? await this.users.findByEmail(query.email) : await this.users.findInOrganization(query.orgId, query.email);
    return user && toUserView(user);
  }
}
