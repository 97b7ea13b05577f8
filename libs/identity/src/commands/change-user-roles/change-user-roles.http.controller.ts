import { Body, Controller, Param, Put, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions, RecentSignIn } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { GetUserQuery } from '../../queries/get-user/get-user.query.js';
import { toUserDto, UserDto } from '../../queries/list-users/list-users.response.dto.js';
import { ChangeUserRolesCommand } from './change-user-roles.command.js';
import { ChangeUserRolesRequestDto } from './change-user-roles.request.dto.js';

@Controller('api/console/v1/users')
export class ChangeUserRolesHttpController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Put(':userId/roles')
  @ApiOperation({
    operationId: 'consoleChangeUserRoles',
    summary: "Replace a user's roles; they apply from the user's next request",
    description: "409 when the organization's last active ADMIN would remove ADMIN from themselves. 404 for a user of another organization.",
  })
  @ApiParam({ name: 'userId', example: 'usr_Q2x1c3Rlcj' })
  @ApiOkResponse({ type: UserDto, description: 'The user, with the roles now in force' })
  @ApiConsoleRoute({ recentSignIn: true }, 400, 404, 409)
  @RequirePermissions('MANAGE_USERS')
  @RecentSignIn()
  async change(
    @Param('userId') userId: string,
    @Body() body: ChangeUserRolesRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<UserDto> {
    await this.commands.execute(new ChangeUserRolesCommand(user.orgId, userId, body.roles, consoleCommandContext(user, request.id)));
    return toUserDto(await this.queries.execute(new GetUserQuery(user.orgId, userId)));
  }
}
