import { Body, Controller, Delete, HttpCode, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiNoContentResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { type ConsolePrincipal, CurrentUser, RequirePermissions, RecentSignIn } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { DisableSecondFactorCommand } from './disable-second-factor.command.js';
import { DisableSecondFactorRequestDto } from './disable-second-factor.request.dto.js';

@Controller('api/console/v1/me/second-factor')
export class DisableSecondFactorHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Delete()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'consoleDisableSecondFactor',
    summary: 'Disable the second factor',
    description:
      'Needs a current code or a recovery code (a pending enrollment is cancelled without one). 400 for a missing, ' +
      'wrong or already used code, 404 when there is no second factor.',
  })
  @ApiNoContentResponse({ description: 'Disabled' })
  @ApiConsoleRoute({ recentSignIn: true }, 400, 404)
  @RequirePermissions('USE_CONSOLE')
  @RecentSignIn()
  async disable(@Body() body: DisableSecondFactorRequestDto, @CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<void> {
    await this.commands.execute(
      new DisableSecondFactorCommand(
        user.orgId,
        user.userId,
        { code: body.code, recoveryCode: body.recoveryCode },
        { orgId: user.orgId, correlationId: request.id, actor: `user:${user.userId}` },
      ),
    );
  }
}
