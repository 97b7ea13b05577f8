import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetCatalogSettingsQuery } from '#warden/catalog';
import { auditPersonalDataAccess } from '#warden/identity/contracts';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { GetItemHistoryQuery } from './get-item-history.query.js';
import { GetItemHistoryRequestDto } from './get-item-history.request.dto.js';
import { ItemHistoryResponseDto } from './get-item-history.response.dto.js';

const DESCRIPTION =
  'Everything that happened, in log order, each with a one-line summary, who caused it and the event: submissions, ' +
  'evaluations with their rule explanations, hash matches, actions and their callbacks with every delivery attempt, ' +
  'reports, review jobs (enqueues, claims, releases, skips, decisions and who took them), appeals, strikes and their ' +
  'reversal, a GDPR deletion. 404 when Warden has recorded nothing about it. Paged with `limit` and `after` (the `nextAfter` of the page before; each page costs what the first does) or `offset`. Personal fields ' +
  '(what people wrote, as the job view shows it) are opened for VIEW_AUDIT_PERSONAL_DATA (ADMIN, ANALYST) and for AUDITOR ' +
  'while the organization grants it (`org.settings.auditorPersonalData`); null otherwise, as after an erasure.';

@Controller('api/console/v1')
export class GetItemHistoryHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get('items/:typeId/:id/history')
  @ApiOperation({ operationId: 'consoleGetItemHistory', summary: "An item's history, explained", description: DESCRIPTION })
  @ApiOkResponse({ type: ItemHistoryResponseDto, description: "A page of the item's history, in log order" })
  @ApiConsoleRoute({}, 400, 404)
  @RequirePermissions('VIEW_AUDIT')
  item(
    @Param('typeId') typeId: string,
    @Param('id') id: string,
    @Query() page: GetItemHistoryRequestDto,
    @CurrentUser() user: ConsolePrincipal,
  ): Promise<ItemHistoryResponseDto> {
    return this.history(user, typeId, id, page);
  }

  @Get('users/:typeId/:id/history')
  @ApiOperation({
    operationId: 'consoleGetUserHistory',
    summary: "A user's history, explained: their user item, what they created and filed, their strikes",
    description:
      `${DESCRIPTION} For a user (an item of a USER type): their own user item's events, the submissions of the items ` +
      'they created, the reports they filed, their appeals, strikes applied and reversed.',
  })
  @ApiOkResponse({ type: ItemHistoryResponseDto, description: "A page of the user's history, in log order" })
  @ApiConsoleRoute({}, 400, 404)
  @RequirePermissions('VIEW_AUDIT')
  user(
    @Param('typeId') typeId: string,
    @Param('id') id: string,
    @Query() page: GetItemHistoryRequestDto,
    @CurrentUser() user: ConsolePrincipal,
  ): Promise<ItemHistoryResponseDto> {
    return this.history(user, typeId, id, page);
  }

  /** A user is an item of a USER type: both routes read the same history. */
  private async history(user: ConsolePrincipal, typeId: string, id: string, page: GetItemHistoryRequestDto): Promise<ItemHistoryResponseDto> {
    const settings = await this.queries.execute(new GetCatalogSettingsQuery(user.orgId, 'settings'));
    const personalData = auditPersonalDataAccess(user.permissions, settings?.auditorPersonalData === true).read;
    return this.queries.execute(new GetItemHistoryQuery(user.orgId, typeId, id, page.offset ?? 0, page.limit ?? 100, personalData, page.after));
  }
}
