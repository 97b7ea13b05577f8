import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExtraModels, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListReviewJobsQuery } from './list-review-jobs.query.js';
import { ListReviewJobsRequestDto } from './list-review-jobs.request.dto.js';
import { JOB_SUMMARY_NULLABLE_MODELS, ReviewJobListResponseDto, toJobSummaryDto } from './list-review-jobs.response.dto.js';

@Controller('api/console/v1/jobs')
@ApiExtraModels(...JOB_SUMMARY_NULLABLE_MODELS)
export class ListReviewJobsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleListJobs',
    summary: "Managers' list of review jobs, oldest first, with the total",
    description:
      '404 for an unknown queue, or the child-safety queue without VIEW_CHILD_SAFETY_DATA. 400 with a pointer for a bad ' +
      'filter (`/openedBefore` not an ISO 8601 datetime, `/queueId` missing without VIEW_CHILD_SAFETY_DATA).',
  })
  @ApiOkResponse({ type: ReviewJobListResponseDto, description: 'A page of the jobs that match the filter' })
  @ApiConsoleRoute({}, 400, 404)
  @RequirePermissions('MANAGE_MRT_JOBS')
  async list(@Query() query: ListReviewJobsRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<ReviewJobListResponseDto> {
    const page = await this.queries.execute(
      new ListReviewJobsQuery(
        user.orgId,
        user,
        { queueId: query.queueId, state: query.state, openedBefore: query.openedBefore },
        query.page ?? 1,
        query.pageSize ?? 50,
      ),
    );
    return { ...page, jobs: page.jobs.map(toJobSummaryDto) };
  }
}
