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
  @ApiOperation({ summary: "The organization's custom and built-in actions (interface spec 4.5)" })
  @ApiOkResponse({ type: ListActionsResponseDto })
  @ApiCustomerRoute()
  async list(@CurrentPrincipal() principal: Principal): Promise<ListActionsResponseDto> {
    return { actions: await this.queries.execute(new ListActionsQuery(principal.orgId)) };
  }
}
