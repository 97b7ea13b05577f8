import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { RenewJobLockCommand } from './renew-job-lock.command.js';
import { LockTokenRequestDto } from './lock-token.request.dto.js';
import { RenewedLockResponseDto } from './renew-job-lock.response.dto.js';

@Controller('api/console/v1/jobs')
export class RenewJobLockHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':jobId/lock')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleRenewJobLock',
    summary: 'Renew your lock on a job (heartbeat)',
    description:
      "The lock runs for the queue's lockTimeoutSeconds from now. 409 `/errors/lock-not-held` when you do not hold it (wrong token, " +
      'released, taken away by a manager, or claimed by someone else after it expired), `/errors/lock-expired` when it expired, ' +
      '`/errors/job-closed` when the job is decided. 404 for a job of another organization, or of the child-safety queue without VIEW_CHILD_SAFETY_DATA.',
  })
  @ApiParam({ name: 'jobId' })
  @ApiOkResponse({ type: RenewedLockResponseDto, description: 'The lock, renewed' })
  @ApiConsoleRoute({}, 400, 404, 409)
  @RequirePermissions('DECIDE_MRT')
  async renew(
    @Param('jobId') jobId: string,
    @Body() body: LockTokenRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<RenewedLockResponseDto> {
    return this.commands.execute(new RenewJobLockCommand(jobId, body.lockToken, user, consoleCommandContext(user, request.id)));
  }
}
