import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListReviewQueuesQuery } from './list-review-queues.query.js';
import { ReviewQueueListResponseDto } from './list-review-queues.response.dto.js';

@Controller('api/console/v1/queues')
export class ListReviewQueuesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleListQueues',
    summary: 'The review queues with their load',
    description: 'The child-safety queue is listed only with VIEW_CHILD_SAFETY_DATA.',
  })
  @ApiOkResponse({ type: ReviewQueueListResponseDto, description: "The organization's review queues" })
  @ApiConsoleRoute()
  @RequirePermissions('VIEW_MRT')
  async list(@CurrentUser() user: ConsolePrincipal): Promise<ReviewQueueListResponseDto> {
    return { queues: await this.queries.execute(new ListReviewQueuesQuery(user.orgId, user)) };
  }
}
