import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { DecideJobCommand } from './decide-job.command.js';
import { DecideJobRequestDto } from './decide-job.request.dto.js';
import { DecisionSummaryDto } from './decide-job.response.dto.js';

@Controller('api/console/v1/jobs')
export class DecideJobHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':jobId/decision')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleDecideJob',
    summary: 'Decide a job you hold the live lock of; the decision closes it',
    description:
      'IGNORE closes the job and sends nothing. CUSTOM_ACTION sends one signed action callback per chosen action ' +
      '(docs/callbacks.md, with actorEmail, actorNote, decisionReason, custom.reason, custom.reportHistory). ' +
      'SUBMIT_CHILD_SAFETY_REPORT (VIEW_CHILD_SAFETY_DATA only, else 403) records a child-safety report listed by ' +
      'GET /api/console/v1/child-safety-reports. TRANSFORM_JOB_AND_RECREATE_IN_QUEUE closes the job and recreates it in ' +
      "`targetQueueId`. 400 with pointers for a decision the catalog or the organization's settings refuse (nothing is " +
      'recorded); 404 for an unknown job (or one of the child-safety queue without VIEW_CHILD_SAFETY_DATA); 409 ' +
      '/errors/lock-not-held, /errors/lock-expired or /errors/job-closed without the live lock.',
  })
  @ApiParam({ name: 'jobId' })
  @ApiOkResponse({ type: DecisionSummaryDto, description: 'The decision, recorded' })
  @ApiConsoleRoute({}, 400, 404, 409)
  @RequirePermissions('DECIDE_MRT')
  async decide(
    @Param('jobId') jobId: string,
    @Body() body: DecideJobRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<DecisionSummaryDto> {
    const { lockToken, ...decision } = body;
    const summary = await this.commands.execute(new DecideJobCommand(jobId, lockToken, decision, user, consoleCommandContext(user, request.id)));
    return { ...summary, deliveryIds: [...summary.deliveryIds] };
  }
}
