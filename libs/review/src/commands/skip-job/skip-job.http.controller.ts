import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiNoContentResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { LockTokenRequestDto } from '../renew-job-lock/lock-token.request.dto.js';
import { SkipJobCommand } from './skip-job.command.js';

@Controller('api/console/v1/jobs')
export class SkipJobHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':jobId/skip')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'consoleSkipJob',
    summary: 'Skip a job you hold: it goes back to the queue, and is not offered to you again for a while',
    description:
      'Other moderators can claim it at once; you are offered it again after WARDEN_REVIEW_SKIP_SECONDS (default 600), or at once when a manager assigns it to you. ' +
      '409 `/errors/lock-not-held`, `/errors/lock-expired` or `/errors/job-closed`. 404 for a job of another organization, or of the child-safety queue without VIEW_CHILD_SAFETY_DATA.',
  })
  @ApiParam({ name: 'jobId' })
  @ApiNoContentResponse({ description: 'Skipped' })
  @ApiConsoleRoute({}, 400, 404, 409)
  @RequirePermissions('DECIDE_MRT')
  async skip(
    @Param('jobId') jobId: string,
    @Body() body: LockTokenRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.commands.execute(new SkipJobCommand(jobId, body.lockToken, user, consoleCommandContext(user, request.id)));
  }
}
