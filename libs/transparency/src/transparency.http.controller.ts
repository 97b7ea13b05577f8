import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListStatementsQuery } from './queries/list-statements/list-statements.query.js';
import { TransparencyReportQuery } from './queries/transparency-report/transparency-report.query.js';
import { StatementPageDto, StatementsRequestDto, TransparencyReportDto, TransparencyReportRequestDto } from './transparency.dto.js';

@Controller('api/console/v1/transparency')
export class TransparencyHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get('statements')
  @ApiOperation({
    operationId: 'consoleListTransparencyStatements',
    summary: 'DSA statements of reasons of the restricting decisions of a period',
    description:
      "Every published action of the session's organization decided in [from, to] (UTC days), oldest first, with its statement of reasons in the DSA " +
      "Transparency Database's submission format (docs/transparency.md); actions mapped `dsa: false` are left out, and a statement the mapping cannot complete " +
      'is null with its problems. 400 with a pointer for a bad date, a period over 366 days, a bad limit or cursor.',
  })
  @ApiOkResponse({ type: StatementPageDto, description: 'One page of statements' })
  @ApiConsoleRoute({}, 400)
  @RequirePermissions('VIEW_INSIGHTS')
  async statements(@Query() query: StatementsRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<StatementPageDto> {
    return this.queries.execute(new ListStatementsQuery(user.orgId, query.from, query.to, query.limit ?? 100, query.cursor));
  }

  @Get('report')
  @ApiOperation({
    operationId: 'consoleGetTransparencyReport',
    summary: 'The DSA transparency report of a period',
    description:
      'Notices by category, restricting actions by policy × source × automated means, time from notice to action, complaints (appeals) and account ' +
      "suspensions of the session's organization in [from, to] (UTC days), from daily counters and the DSA mapping in force (docs/transparency.md). " +
      '400 with a pointer for a bad date or a period over 366 days.',
  })
  @ApiOkResponse({ type: TransparencyReportDto, description: 'The figures of the period' })
  @ApiConsoleRoute({}, 400)
  @RequirePermissions('VIEW_INSIGHTS')
  async report(@Query() query: TransparencyReportRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<TransparencyReportDto> {
    return this.queries.execute(new TransparencyReportQuery(user.orgId, query.from, query.to));
  }
}
