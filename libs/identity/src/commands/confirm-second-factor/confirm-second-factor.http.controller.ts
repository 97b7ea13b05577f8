import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ConfirmSecondFactorCommand } from './confirm-second-factor.command.js';
import { ConfirmSecondFactorRequestDto, RecoveryCodesResponseDto } from './confirm-second-factor.request.dto.js';

@Controller('api/console/v1/me/second-factor/confirm')
export class ConfirmSecondFactorHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleConfirmSecondFactor',
    summary: 'Confirm the second factor with a code; returns the recovery codes',
    description:
      'A valid code from the app activates the second factor: from then on a password login also needs a code ' +
      '(or a recovery code). 400 for a wrong code, 404 when no enrollment was started, 409 when already active.',
  })
  @ApiOkResponse({ type: RecoveryCodesResponseDto, description: 'The second factor is active: its recovery codes, shown this once' })
  @ApiConsoleRoute({}, 400, 404, 409)
  @RequirePermissions('USE_CONSOLE')
  confirm(
    @Body() body: ConfirmSecondFactorRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<RecoveryCodesResponseDto> {
    return this.commands.execute(
      new ConfirmSecondFactorCommand(user.orgId, user.userId, body.code, {
        orgId: user.orgId,
        correlationId: request.id,
        actor: `user:${user.userId}`,
      }),
    );
  }
}
