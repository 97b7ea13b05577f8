import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiNoContentResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { AssignJobCommand } from './assign-job.command.js';
import { AssignJobRequestDto } from './assign-job.request.dto.js';

@Controller('api/console/v1/jobs')
export class AssignJobHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':jobId/assign')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'consoleAssignJob',
    summary: 'Reserve a job for one moderator (managers): only they can claim it; any lock held is ended',
    description:
      'Their next claim on the queue offers it first. 400 (pointer `/userId`) when the user is not an active user of the organization who may decide jobs of this queue; ' +
      '409 `/errors/job-closed` for a decided job; 404 for a job of another organization, or of the child-safety queue without VIEW_CHILD_SAFETY_DATA.',
  })
  @ApiParam({ name: 'jobId' })
  @ApiNoContentResponse({ description: 'Assigned' })
  @ApiConsoleRoute({}, 400, 404, 409)
  @RequirePermissions('MANAGE_MRT_JOBS')
  async assign(
    @Param('jobId') jobId: string,
    @Body() body: AssignJobRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.commands.execute(new AssignJobCommand(jobId, body.userId, user, consoleCommandContext(user, request.id)));
  }
}
