import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiCustomerRoute } from '#warden/platform/http';
import { ListItemTypesQuery } from './list-item-types.query.js';
import { ListItemTypesResponseDto } from './list-item-types.response.dto.js';

@ApiTags('catalog')
@Controller('api/v1/item_types')
export class ListItemTypesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({ operationId: 'listItemTypes', summary: 'Item-type schemas and field roles' })
  @ApiOkResponse({
    type: ListItemTypesResponseDto,
    description: "The organization's item types, each with its fields and roles",
    example: {
      itemTypes: [
        {
          id: 'post',
          name: 'Post',
          kind: 'CONTENT',
          version: '2',
          fields: [
            { name: 'text', type: 'STRING', required: true, array: false, itemTypeIds: [] },
            { name: 'images', type: 'IMAGE', required: false, array: true, itemTypeIds: [] },
            { name: 'author', type: 'RELATED_ITEM', required: true, array: false, itemTypeIds: ['user'] },
            { name: 'postedAt', type: 'DATETIME', required: false, array: false, itemTypeIds: [] },
          ],
          roles: { creator: 'author', createdAt: 'postedAt' },
        },
        {
          id: 'user',
          name: 'User',
          kind: 'USER',
          version: null,
          fields: [{ name: 'name', type: 'STRING', required: false, array: false, itemTypeIds: [] }],
          roles: { displayName: 'name' },
        },
      ],
    },
  })
  @ApiCustomerRoute()
  async list(@CurrentPrincipal() principal: Principal): Promise<ListItemTypesResponseDto> {
    return { itemTypes: await this.queries.execute(new ListItemTypesQuery(principal.orgId)) };
  }
}
