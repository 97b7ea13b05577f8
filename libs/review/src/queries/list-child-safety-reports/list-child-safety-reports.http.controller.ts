import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExtraModels, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListChildSafetyReportsQuery } from './list-child-safety-reports.query.js';
import { ListChildSafetyReportsRequestDto } from './list-child-safety-reports.request.dto.js';
import { CHILD_SAFETY_REPORT_NULLABLE_MODELS, ChildSafetyReportPageDto } from './list-child-safety-reports.response.dto.js';

@Controller('api/console/v1/child-safety-reports')
@ApiExtraModels(...CHILD_SAFETY_REPORT_NULLABLE_MODELS)
export class ListChildSafetyReportsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleListChildSafetyReports',
    summary: 'Export the child-safety reports moderators recorded',
    description:
      'What SUBMIT_CHILD_SAFETY_REPORT decisions recorded, with what a CyberTipline-style report needs (item and ' +
      "version, media URLs, creator, reporters and their reasons, the moderator's reason and note, who recorded it " +
      'and when), newest first, paginated with `limit` and `offset`. Nothing is submitted to an outside body.',
  })
  @ApiOkResponse({ type: ChildSafetyReportPageDto, description: 'A page of child-safety reports, newest first' })
  @ApiConsoleRoute({}, 400)
  @RequirePermissions('VIEW_CHILD_SAFETY_DATA')
  async list(@CurrentUser() user: ConsolePrincipal, @Query() query: ListChildSafetyReportsRequestDto): Promise<ChildSafetyReportPageDto> {
    return this.queries.execute(new ListChildSafetyReportsQuery(user.orgId, query.limit ?? 50, query.offset ?? 0));
  }
}
