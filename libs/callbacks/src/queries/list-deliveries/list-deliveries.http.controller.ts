import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiCustomerRoute } from '#warden/platform/http';
import { ListDeliveriesQuery } from './list-deliveries.query.js';
import { ListDeliveriesRequestDto } from './list-deliveries.request.dto.js';
import { ListDeliveriesResponseDto } from './list-deliveries.response.dto.js';

@ApiTags('callbacks')
@Controller('api/v1/callbacks/deliveries')
export class ListDeliveriesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    summary: "The organization's callback deliveries and their state",
    description:
      'Our extension. Action and appeal-decision callbacks, newest request first, paginated with `limit` and `offset` ' +
      '(follow `nextOffset`; the list is a live view, so a delivery changing status between pages may move). ' +
      'Dead-lettered deliveries are sent again with `npm run warden -- callbacks redeliver`.',
  })
  @ApiOkResponse({ type: ListDeliveriesResponseDto })
  @ApiCustomerRoute(400)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListDeliveriesRequestDto): Promise<ListDeliveriesResponseDto> {
    return this.queries.execute(new ListDeliveriesQuery(principal.orgId, query.status, query.limit ?? 50, query.offset ?? 0));
  }
}
