import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListPoliciesQuery } from './list-policies.query.js';
import { ListPoliciesResponseDto } from './list-policies.response.dto.js';

/** The customer route's twin for the console, which has a session rather than an API key. */
@Controller('api/console/v1/policies')
export class ConsoleListPoliciesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleListPolicies',
    summary: 'All policies of the organization, as GET /api/v1/policies lists them',
    description: 'What the decision panel builds its policy tree from (`parentId`).',
  })
  @ApiOkResponse({ type: ListPoliciesResponseDto, description: "The organization's policies" })
  @ApiConsoleRoute()
  @RequirePermissions('VIEW_MRT')
  async list(@CurrentUser() user: ConsolePrincipal): Promise<ListPoliciesResponseDto> {
    return { policies: await this.queries.execute(new ListPoliciesQuery(user.orgId)) };
  }
}
