import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { InsightsReportDto, InsightsRequestDto } from './insights.dto.js';
import { GetInsightsQuery } from './queries/get-insights/get-insights.query.js';

@Controller('api/console/v1/insights')
export class InsightsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleGetInsights',
    summary: "The Insights charts' data over a period",
    description:
      "Per UTC day of [from, to], for the session's organization (docs/insights.md): published actions by source and by policy, queue depth and oldest " +
      'waiting age, time to decision p50/p90 per queue, decisions per moderator, appeal overturn rates per policy and per rule, automated against human ' +
      "actions, rules' daily actions against maxDailyActions; read from daily buckets. `queue` narrows the queue charts. The child-safety queue is charted only with VIEW_CHILD_SAFETY_DATA. " +
      '400 with a pointer for a bad date, a period over 366 days or an unknown queue (the child-safety queue without VIEW_CHILD_SAFETY_DATA too).',
  })
  @ApiOkResponse({ type: InsightsReportDto, description: 'Every chart of the period' })
  @ApiConsoleRoute({}, 400)
  @RequirePermissions('VIEW_INSIGHTS')
  async insights(@Query() query: InsightsRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<InsightsReportDto> {
    return this.queries.execute(new GetInsightsQuery(user.orgId, user, query.from, query.to, query.queue));
  }
}
