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
    operationId: 'listCallbackDeliveries',
    summary: "The organization's callback deliveries and their state",
    description:
      'Our extension. Action and appeal-decision callbacks, newest request first, paginated with `limit` and `offset` ' +
      '(follow `nextOffset`; the list is a live view, so a delivery changing status between pages may move). ' +
      'Dead-lettered deliveries are sent again with `npm run warden -- callbacks redeliver`.',
  })
  @ApiOkResponse({
    type: ListDeliveriesResponseDto,
    description: 'A page of deliveries, newest request first',
    example: {
      deliveries: [
        {
          deliveryId: 'bdab9ff7-aa7f-8661-a303-037b90d2a579',
          kind: 'action',
          trigger: 'rule',
          actionId: 'remove',
          appealId: null,
          item: { id: 'post-123', typeId: 'post' },
          destination: 'https://hooks.acme.example/warden/remove',
          status: 'delivered',
          cycle: 1,
          attempts: 2,
          totalAttempts: 2,
          nextAttemptAt: null,
          lastStatus: 200,
          lastError: null,
          requestedAt: '2026-03-04T10:12:40.270Z',
          updatedAt: '2026-03-04T10:12:41.712Z',
          deliveredAt: '2026-03-04T10:12:41.698Z',
          deadLetteredAt: null,
        },
      ],
      total: 1,
      totalExact: true,
      limit: 50,
      offset: 0,
      nextOffset: null,
    },
  })
  @ApiCustomerRoute(400)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListDeliveriesRequestDto): Promise<ListDeliveriesResponseDto> {
    return this.queries.execute(new ListDeliveriesQuery(principal.orgId, query.status, query.limit ?? 50, query.offset ?? 0));
  }
}
