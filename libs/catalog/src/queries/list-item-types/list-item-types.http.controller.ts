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
  @ApiOperation({ summary: 'Item-type schemas and field roles (interface spec 4.9)' })
  @ApiOkResponse({ type: ListItemTypesResponseDto })
  @ApiCustomerRoute()
  async list(@CurrentPrincipal() principal: Principal): Promise<ListItemTypesResponseDto> {
    return { itemTypes: await this.queries.execute(new ListItemTypesQuery(principal.orgId)) };
  }
}
