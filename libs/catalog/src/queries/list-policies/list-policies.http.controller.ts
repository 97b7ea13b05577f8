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
  @ApiOperation({ operationId: 'listPolicies', summary: 'All policies of the organization' })
  @ApiOkResponse({
    type: ListPoliciesResponseDto,
    description: 'Every policy of the organization; rebuild the tree from `parentId`',
    example: {
      policies: [
        {
          id: 'fraud',
          name: 'Fraud',
          parentId: null,
          policyText: 'Content that tries to deceive people out of money or personal data.',
          enforcementGuidelines: 'Remove the content; strike the author.',
          policyType: 'FRAUD',
          semanticVersion: 2,
          userStrikeCount: 3,
          applyUserStrikeCountConfigToChildren: true,
          penalty: 'HIGH',
        },
        {
          id: 'scam',
          name: 'Scam',
          parentId: 'fraud',
          policyText: null,
          enforcementGuidelines: null,
          policyType: 'FRAUD',
          semanticVersion: 1,
          userStrikeCount: 3,
          applyUserStrikeCountConfigToChildren: false,
          penalty: 'HIGH',
        },
      ],
    },
  })
  @ApiCustomerRoute()
  async list(@CurrentPrincipal() principal: Principal): Promise<ListPoliciesResponseDto> {
    return { policies: await this.queries.execute(new ListPoliciesQuery(principal.orgId)) };
  }
}
