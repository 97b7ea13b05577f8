import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions, RecentSignIn } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { GetUserQuery } from '../../queries/get-user/get-user.query.js';
import { toUserDto, UserDto } from '../../queries/list-users/list-users.response.dto.js';
import { DisableUserCommand } from './disable-user.command.js';

@Controller('api/console/v1/users')
export class DisableUserHttpController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post(':userId/disable')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleDisableUser',
    summary: 'Disable a user: its sessions end and it can no longer sign in',
    description: "Disabling a disabled user changes nothing. 409 when the organization's last active ADMIN would disable themselves.",
  })
  @ApiParam({ name: 'userId', example: 'usr_Q2x1c3Rlcj' })
  @ApiOkResponse({ type: UserDto, description: 'The user, now disabled' })
  @ApiConsoleRoute({ recentSignIn: true }, 404, 409)
  @RequirePermissions('MANAGE_USERS')
  @RecentSignIn()
  async disable(@Param('userId') userId: string, @CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<UserDto> {
    await this.commands.execute(new DisableUserCommand(user.orgId, userId, consoleCommandContext(user, request.id)));
    return toUserDto(await this.queries.execute(new GetUserQuery(user.orgId, userId)));
  }
}
