import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { type ConsolePrincipal, CurrentUser, RequirePermissions, RecentSignIn } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { StartSecondFactorEnrollmentCommand } from './start-second-factor-enrollment.command.js';
import { SecondFactorEnrollmentResponseDto } from './start-second-factor-enrollment.response.dto.js';

@Controller('api/console/v1/me/second-factor')
export class StartSecondFactorEnrollmentHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleStartSecondFactorEnrollment',
    summary: 'Start enrolling a TOTP second factor',
    description:
      'Creates a new secret for an authenticator app (RFC 6238: SHA-1, 6 digits, 30 s). The factor is pending until ' +
      'POST /api/console/v1/me/second-factor/confirm receives a valid code; starting again replaces a pending secret. ' +
      '409 when a second factor is already active (disable it first).',
  })
  @ApiOkResponse({ type: SecondFactorEnrollmentResponseDto, description: 'The secret for an authenticator app; pending until confirmed with a code' })
  @ApiConsoleRoute({ recentSignIn: true }, 409)
  @RequirePermissions('USE_CONSOLE')
  @RecentSignIn()
  start(@CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<SecondFactorEnrollmentResponseDto> {
    return this.commands.execute(
      new StartSecondFactorEnrollmentCommand(user.orgId, user.userId, user.email, {
        orgId: user.orgId,
        correlationId: request.id,
        actor: `user:${user.userId}`,
      }),
    );
  }
}
