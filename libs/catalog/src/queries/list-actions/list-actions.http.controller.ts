import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiCustomerRoute } from '#warden/platform/http';
import { ListActionsQuery } from './list-actions.query.js';
import { ListActionsResponseDto } from './list-actions.response.dto.js';

@ApiTags('catalog')
@Controller('api/v1/actions')
export class ListActionsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({ operationId: 'listActions', summary: "The organization's custom and built-in actions" })
  @ApiOkResponse({
    type: ListActionsResponseDto,
    description: "The organization's customer-defined actions and the built-in ones",
    example: {
      actions: [
        {
          id: 'remove',
          name: 'Remove',
          description: 'Take the content down',
          actionType: 'CUSTOM_ACTION',
          applyUserStrikes: true,
          penalty: 'HIGH',
          itemTypeIds: ['post', 'comment'],
          parameters: [],
        },
        {
          id: 'suspend',
          name: 'Suspend',
          description: null,
          actionType: 'CUSTOM_ACTION',
          applyUserStrikes: false,
          penalty: 'SEVERE',
          itemTypeIds: ['user'],
          parameters: [{ name: 'durationDays', type: 'NUMBER', required: true }],
        },
        {
          id: 'enqueue-to-mrt',
          name: 'Enqueue to manual review',
          description: 'Adds the item to a manual review queue',
          actionType: 'ENQUEUE_TO_MRT',
          applyUserStrikes: false,
          penalty: 'NONE',
          itemTypeIds: ['post', 'comment', 'user'],
          parameters: [],
        },
      ],
    },
  })
  @ApiCustomerRoute()
  async list(@CurrentPrincipal() principal: Principal): Promise<ListActionsResponseDto> {
    return { actions: await this.queries.execute(new ListActionsQuery(principal.orgId)) };
  }
}
