import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { notFound } from '#warden/kernel';
import { UserDirectory } from '../../user-directory.js';
import { toUserView, type UserView } from '../user-view.js';
import { GetUserQuery } from './get-user.query.js';

@QueryHandler(GetUserQuery)
export class GetUserHandler implements IQueryHandler<GetUserQuery> {
  constructor(private readonly users: UserDirectory) {}

  async execute(query: GetUserQuery): Promise<UserView> {
    const user = await this.users.get(query.orgId, query.userId);
    if (!user) throw notFound(`No user ${query.userId}`);
    return toUserView(user);
  }
}
