import { Controller, Get, Header, Param, Query, StreamableFile } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListItemStatementsQuery } from './queries/list-item-statements/list-item-statements.query.js';
import { ListStatementsQuery } from './queries/list-statements/list-statements.query.js';
import { reportCsv } from './queries/transparency-report/report-csv.js';
import { TransparencyReportQuery } from './queries/transparency-report/transparency-report.query.js';
import { ItemStatementsDto, StatementPageDto, StatementsRequestDto, TransparencyReportDto, TransparencyReportRequestDto } from './transparency.dto.js';

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
      'is null with its problems. Without VIEW_CHILD_SAFETY_DATA the statements of actions a child-safety review decision caused (its own, a strike threshold it crossed) ' +
      'are left out, as Investigate leaves them out. 400 with a pointer for a bad date, a period over 366 days, a bad limit or cursor.',
  })
  @ApiOkResponse({ type: StatementPageDto, description: 'One page of statements' })
  @ApiConsoleRoute({}, 400)
  @RequirePermissions('VIEW_INSIGHTS')
  async statements(@Query() query: StatementsRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<StatementPageDto> {
    return this.queries.execute(new ListStatementsQuery(user.orgId, query.from, query.to, query.limit ?? 100, query.cursor, user.permissions));
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

  @Get('report/csv')
  @ApiOperation({
    operationId: 'consoleDownloadTransparencyReportCsv',
    summary: 'The DSA transparency report of a period, as CSV',
    description:
      'The same figures as `GET /api/console/v1/transparency/report`, one a row (section, policy, category, source, automated detection and decision, ' +
      'reporter type, figure, value), as `warden transparency report --format csv` writes them; sent as an attachment. 400 with a pointer for a bad period.',
  })
  @ApiOkResponse({ description: 'CSV with a header row', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiConsoleRoute({}, 400)
  @RequirePermissions('VIEW_INSIGHTS')
  @Header('Cache-Control', 'no-store')
  async reportCsv(@Query() query: TransparencyReportRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<StreamableFile> {
    const report = await this.queries.execute(new TransparencyReportQuery(user.orgId, query.from, query.to));
    return new StreamableFile(Buffer.from(`${reportCsv(report)}\n`), {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="transparency-report-${report.from}-${report.to}.csv"`,
    });
  }

  @Get('items/:typeId/:itemId/statements')
  @ApiOperation({
    operationId: 'consoleListItemStatements',
    summary: "The statements of reasons of an item's restricting decisions, with their submission state",
    description:
      "Every published action on the item (of the session's organization), newest first, with its statement of reasons and where its submission to the DSA " +
      'Transparency Database stands (docs/transparency.md): what the job and item views show beside each action. Empty for an item never acted on. ' +
      'Without VIEW_CHILD_SAFETY_DATA the statements of actions a child-safety review decision caused are left out.',
  })
  @ApiOkResponse({ type: ItemStatementsDto, description: "The item's statements" })
  @ApiConsoleRoute({})
  @RequirePermissions('VIEW_MRT')
  async itemStatements(@Param('typeId') typeId: string, @Param('itemId') itemId: string, @CurrentUser() user: ConsolePrincipal): Promise<ItemStatementsDto> {
    return { statements: await this.queries.execute(new ListItemStatementsQuery(user.orgId, typeId, itemId, user.permissions)) };
  }
}
