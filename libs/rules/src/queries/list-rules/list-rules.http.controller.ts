import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListRulesQuery } from './list-rules.query.js';
import { ListRulesResponseDto } from './list-rules.response.dto.js';

@Controller('api/console/v1/rules')
export class ListRulesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleListRules',
    summary: "The organization's rules with today's actions and their latest matches",
    description: 'The rules page: every rule of the configuration applied (not archived), whatever its status.',
  })
  @ApiOkResponse({ type: ListRulesResponseDto, description: "The organization's rules, with their recent matches" })
  @ApiConsoleRoute()
  @RequirePermissions('VIEW_RULES')
  async list(@CurrentUser() user: ConsolePrincipal): Promise<ListRulesResponseDto> {
    return { rules: (await this.queries.execute(new ListRulesQuery(user.orgId))) as ListRulesResponseDto['rules'] };
  }
}
