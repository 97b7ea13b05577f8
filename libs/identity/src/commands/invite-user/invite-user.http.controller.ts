import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  consoleCommandContext,
  type ConsolePrincipal,
  CurrentUser,
  RequirePermissions,
  WARDEN_CONFIG,
  type WardenConfig,
  RecentSignIn,
} from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { toUserDto } from '../../queries/list-users/list-users.response.dto.js';
import { GetUserQuery } from '../../queries/get-user/get-user.query.js';
import { invitationLink } from '../../domain/invitation-token.js';
import { InviteUserCommand } from './invite-user.command.js';
import { InviteUserRequestDto } from './invite-user.request.dto.js';
import { InvitationResponseDto } from './invite-user.response.dto.js';

@Controller('api/console/v1/users/invitations')
export class InviteUserHttpController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'consoleInviteUser',
    summary: 'Invite a person: a user (state invited) and a one-time link to set a password',
    description:
      'The link expires in 72 hours and works once. Inviting an address again before it was accepted renews the ' +
      'invitation (the earlier link stops working) and sets the roles. 409 for an address of an active or disabled ' +
      'user of the organization. An address used in another organization gets the same answer as a new one: the ' +
      'conflict is settled when the invitation is accepted (see the acceptance).',
  })
  @ApiCreatedResponse({ type: InvitationResponseDto, description: 'The invited user and the invitation link' })
  @ApiConsoleRoute({ recentSignIn: true }, 400, 409)
  @RequirePermissions('MANAGE_USERS')
  @RecentSignIn()
  async invite(@Body() body: InviteUserRequestDto, @CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<InvitationResponseDto> {
    const invitation = await this.commands.execute(new InviteUserCommand(user.orgId, body.email, body.roles, consoleCommandContext(user, request.id)));
    const invited = await this.queries.execute(new GetUserQuery(user.orgId, invitation.userId));
    return { user: toUserDto(invited), invitationUrl: invitationLink(this.config.publicUrl, invitation.token), expiresAt: invitation.expiresAt };
  }
}
