import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { USERS_PROJECTION } from '../../projections/users.projection.js';
import { USERS, type UserDoc } from '../../projections/users.read-model.js';
import { toUserView, type UserView } from '../user-view.js';
import { ListUsersQuery } from './list-users.query.js';

@QueryHandler(ListUsersQuery)
export class ListUsersHandler implements IQueryHandler<ListUsersQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: ListUsersQuery): Promise<UserView[]> {
    await this.projections.catchUp(USERS_PROJECTION);
    const users = await this.readStore.find<UserDoc>(USERS, { orgId: query.orgId }, { sort: [{ field: 'createdAt', direction: 'asc' }] });
    return users.map(toUserView);
  }
}
