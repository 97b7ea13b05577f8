import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { GetReviewJobQuery } from '../../queries/get-review-job/get-review-job.query.js';
import { JOB_VIEW_NULLABLE_MODELS } from '../../queries/get-review-job/review-job.response.dto.js';
import { ClaimNextJobCommand } from './claim-next-job.command.js';
import { ClaimedJobResponseDto } from './claim-next-job.response.dto.js';

@Controller('api/console/v1/queues')
@ApiExtraModels(...JOB_VIEW_NULLABLE_MODELS)
export class ClaimNextJobHttpController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post(':queueId/claim')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleClaimNextJob',
    summary: 'Claim the next job of a queue under an exclusive lock',
    description:
      "The job is held by the caller until `lock.expiresAt` (the queue's lockTimeoutSeconds); renew it while working. 204 when the queue has no job to offer. 404 for an unknown queue, or the child-safety queue without VIEW_CHILD_SAFETY_DATA.",
  })
  @ApiParam({ name: 'queueId', example: 'default' })
  @ApiOkResponse({ type: ClaimedJobResponseDto, description: 'A job, now locked to you, and its lock' })
  @ApiNoContentResponse({ description: 'The queue has no job to offer you now' })
  @ApiConsoleRoute({}, 404)
  @RequirePermissions('DECIDE_MRT')
  async claim(
    @Param('queueId') queueId: string,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ClaimedJobResponseDto | undefined> {
    const claimed = await this.commands.execute(new ClaimNextJobCommand(queueId, user, consoleCommandContext(user, request.id)));
    if (!claimed) {
      reply.status(204);
      return undefined;
    }
    const job = await this.queries.execute(new GetReviewJobQuery(user.orgId, claimed.jobId, user));
    return { job, lock: claimed.lock };
  }
}
