import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListActionsQuery } from './list-actions.query.js';
import { ListActionsResponseDto } from './list-actions.response.dto.js';

/** The customer route's twin for the console, which has a session rather than an API key. */
@Controller('api/console/v1/actions')
export class ConsoleListActionsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleListActions',
    summary: "The organization's custom and built-in actions, as GET /api/v1/actions lists them",
    description: "What the decision panel offers, filtered by the job's item type (`itemTypeIds`). Callbacks are never returned.",
  })
  @ApiOkResponse({ type: ListActionsResponseDto, description: 'The actions a decision may take' })
  @ApiConsoleRoute()
  @RequirePermissions('VIEW_MRT')
  async list(@CurrentUser() user: ConsolePrincipal): Promise<ListActionsResponseDto> {
    return { actions: await this.queries.execute(new ListActionsQuery(user.orgId)) };
  }
}
