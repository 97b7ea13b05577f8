import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiCustomerRoute } from '#warden/platform/http';
import { GetOrganizationQuery } from './get-organization.query.js';
import { OrganizationResponseDto } from './get-organization.response.dto.js';

@ApiTags('organization')
@Controller('api/v1/organization')
export class GetOrganizationHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'getOrganization',
    summary: 'The organization (and key) the X-API-KEY belongs to',
    description: 'Our extension: lets an integration check which organization its key is scoped to.',
  })
  @ApiOkResponse({
    type: OrganizationResponseDto,
    description: 'The organization, and the key the request came with',
    example: {
      id: 'acme',
      name: 'Acme Social',
      createdAt: '2026-01-15T09:30:00.000Z',
      apiKey: { id: 'key_hIrXINebxiqsdaHJ', team: 'trust-and-safety' },
    },
  })
  @ApiCustomerRoute()
  async get(@CurrentPrincipal() principal: Principal): Promise<OrganizationResponseDto> {
    const org = await this.queries.execute(new GetOrganizationQuery(principal.orgId));
    return { ...org, apiKey: { id: principal.keyId, team: principal.team } };
  }
}
