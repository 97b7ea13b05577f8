import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { toUserDto, UserDto } from '../list-users/list-users.response.dto.js';
import { GetUserQuery } from './get-user.query.js';

@Controller('api/console/v1/users')
export class GetUserHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':userId')
  @ApiOperation({ operationId: 'consoleGetUser', summary: 'One dashboard user of the organization (404 for any other id)' })
  @ApiParam({ name: 'userId', example: 'usr_Q2x1c3Rlcj' })
  @ApiOkResponse({ type: UserDto, description: 'The user' })
  @ApiConsoleRoute({}, 404)
  @RequirePermissions('MANAGE_USERS')
  async get(@Param('userId') userId: string, @CurrentUser() user: ConsolePrincipal): Promise<UserDto> {
    return toUserDto(await this.queries.execute(new GetUserQuery(user.orgId, userId)));
  }
}
