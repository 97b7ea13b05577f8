import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListDeliveriesQuery } from './list-deliveries.query.js';
import { ListDeliveriesRequestDto } from './list-deliveries.request.dto.js';
import { ListDeliveriesResponseDto } from './list-deliveries.response.dto.js';

/** The customer route's twin for the console's admins: same filters, same page. */
@Controller('api/console/v1/callbacks/deliveries')
export class ConsoleListDeliveriesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleListCallbackDeliveries',
    summary: "The organization's callback deliveries and their state, as GET /api/v1/callbacks/deliveries lists them",
    description:
      'Action and appeal-decision callbacks, newest request first, paginated with `limit` and `offset` (follow ' +
      '`nextOffset`). A failed or dead-lettered delivery is sent again with ' +
      '`POST /api/console/v1/callbacks/deliveries/{deliveryId}/redeliver`.',
  })
  @ApiOkResponse({ type: ListDeliveriesResponseDto, description: 'A page of deliveries, newest request first' })
  @ApiConsoleRoute({}, 400)
  @RequirePermissions('MANAGE_CALLBACKS')
  list(@CurrentUser() user: ConsolePrincipal, @Query() query: ListDeliveriesRequestDto): Promise<ListDeliveriesResponseDto> {
    return this.queries.execute(new ListDeliveriesQuery(user.orgId, query.status, query.limit ?? 50, query.offset ?? 0));
  }
}
