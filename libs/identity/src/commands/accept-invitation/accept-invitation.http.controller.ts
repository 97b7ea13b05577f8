import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ConsolePublic } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { toUserDto, UserDto } from '../../queries/list-users/list-users.response.dto.js';
import { AcceptInvitationCommand } from './accept-invitation.command.js';
import { AcceptInvitationRequestDto } from './accept-invitation.request.dto.js';

@Controller('api/console/v1/invitations/accept')
export class AcceptInvitationHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(200)
  @ConsolePublic()
  @ApiConsoleRoute({ public: true }, 400, 401, 409)
  @ApiOperation({
    operationId: 'consoleAcceptInvitation',
    summary: 'Accept an invitation: set the password; the user becomes active and can sign in',
    description:
      'The same 401 for an unknown, used or expired token. 409 when the email address already has an account in another organization (an address belongs to one organization; an invitation of it was answered like any other, so that only the person accepting learns this). 400 on /password, its detail saying why, for a password that is too short or too long, contains a control character, is a common or breached password, a repeated or sequential pattern, or is built on the email address.',
  })
  @ApiOkResponse({ type: UserDto, description: 'The user, now active: sign in with the password' })
  async accept(@Body() body: AcceptInvitationRequestDto, @Req() request: FastifyRequest): Promise<UserDto> {
    return toUserDto(await this.commands.execute(new AcceptInvitationCommand(body.token, body.password, request.id)));
  }
}
