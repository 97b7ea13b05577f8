import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListUsersQuery } from './list-users.query.js';
import { toUserDto, UserListResponseDto } from './list-users.response.dto.js';

@Controller('api/console/v1/users')
export class ListUsersHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({ operationId: 'consoleListUsers', summary: "The organization's dashboard users: email, roles, state" })
  @ApiOkResponse({ type: UserListResponseDto, description: "The organization's console users" })
  @ApiConsoleRoute()
  @RequirePermissions('MANAGE_USERS')
  async list(@CurrentUser() user: ConsolePrincipal): Promise<UserListResponseDto> {
    return { users: (await this.queries.execute(new ListUsersQuery(user.orgId))).map(toUserDto) };
  }
}
