import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiCustomerRoute } from '#warden/platform/http';
import { ListPoliciesQuery } from './list-policies.query.js';
import { ListPoliciesResponseDto } from './list-policies.response.dto.js';

@ApiTags('catalog')
@Controller('api/v1/policies')
export class ListPoliciesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({ summary: 'All policies of the organization (interface spec 4.4)' })
  @ApiOkResponse({ type: ListPoliciesResponseDto })
  @ApiCustomerRoute()
  async list(@CurrentPrincipal() principal: Principal): Promise<ListPoliciesResponseDto> {
    return { policies: await this.queries.execute(new ListPoliciesQuery(principal.orgId)) };
  }
}
