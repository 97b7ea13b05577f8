import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { AppealsReportQuery } from './appeals-report.query.js';
import { AppealsReportRequestDto } from './appeals-report.request.dto.js';
import { AppealsReportResponseDto } from './appeals-report.response.dto.js';

@Controller('api/console/v1/reports/appeals')
export class AppealsReportHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleGetAppealsReport',
    summary: 'Appeal outcomes per rule and policy: which rules are overturned most often',
    description:
      'Appeals whose appealedAt is in [from, to], counted for every rule and policy of the callbacks Warden sent for the ' +
      'actioned item under the appealed actions. 400 with a pointer when `from` or `to` is not an ISO 8601 datetime, ' +
      '`from` is after `to`, or the window spans more than 366 days.',
  })
  @ApiOkResponse({ type: AppealsReportResponseDto, description: 'The counts for the window' })
  @ApiConsoleRoute({}, 400)
  @RequirePermissions('VIEW_INSIGHTS')
  async report(@Query() query: AppealsReportRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<AppealsReportResponseDto> {
    return this.queries.execute(new AppealsReportQuery(user.orgId, query.from, query.to));
  }
}
