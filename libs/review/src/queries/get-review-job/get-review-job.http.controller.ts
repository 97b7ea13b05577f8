import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { GetReviewJobQuery } from './get-review-job.query.js';
import { JOB_VIEW_NULLABLE_MODELS, ReviewJobResponseDto } from './review-job.response.dto.js';
import type { ReviewJobView } from './review-job.view.js';

@Controller('api/console/v1/jobs')
@ApiExtraModels(...JOB_VIEW_NULLABLE_MODELS)
export class GetReviewJobHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':jobId')
  @ApiOperation({
    operationId: 'consoleGetJob',
    summary: 'One review job as a moderator sees it',
    description:
      'Never shows a lock token. 404 for a job of another organization, or, without VIEW_CHILD_SAFETY_DATA, of the child-safety queue or ' +
      'one a decision sent there (SUBMIT_CHILD_SAFETY_REPORT, or moved there).',
  })
  @ApiParam({ name: 'jobId' })
  @ApiOkResponse({ type: ReviewJobResponseDto, description: 'The job, with its item, context and history' })
  @ApiConsoleRoute({}, 404)
  @RequirePermissions('VIEW_MRT')
  async get(@Param('jobId') jobId: string, @CurrentUser() user: ConsolePrincipal): Promise<ReviewJobView> {
    return this.queries.execute(new GetReviewJobQuery(user.orgId, jobId, user));
  }
}
