import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiNoContentResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { TakeBackJobCommand } from './take-back-job.command.js';

@Controller('api/console/v1/jobs')
export class TakeBackJobHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':jobId/release')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'consoleTakeBackJob',
    summary: 'Take a job away from its holder or assignee (managers): it is claimable again by anyone',
    description:
      'The former holder can no longer renew or decide (409 `/errors/lock-not-held`). Nothing happens for a job nobody holds. ' +
      '409 `/errors/job-closed` for a decided job; 404 for a job of another organization, or of the child-safety queue without VIEW_CHILD_SAFETY_DATA.',
  })
  @ApiParam({ name: 'jobId' })
  @ApiNoContentResponse({ description: 'Released' })
  @ApiConsoleRoute({}, 404, 409)
  @RequirePermissions('MANAGE_MRT_JOBS')
  async release(@Param('jobId') jobId: string, @CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<void> {
    await this.commands.execute(new TakeBackJobCommand(jobId, user, consoleCommandContext(user, request.id)));
  }
}
