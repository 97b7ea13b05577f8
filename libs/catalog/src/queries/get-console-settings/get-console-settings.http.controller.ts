import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { GetConsoleSettingsQuery } from './get-console-settings.query.js';
import { ConsoleSettingsResponseDto } from './get-console-settings.response.dto.js';

@Controller('api/console/v1/settings')
export class GetConsoleSettingsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleGetSettings',
    summary: "The signed-in user's organization and the settings the console follows",
    description:
      'The decision rules a moderator must meet (a reason, a policy) and the moderator-wellness settings, as the ' +
      "organization's configuration sets them (defaults where it does not).",
  })
  @ApiOkResponse({ type: ConsoleSettingsResponseDto, description: "The organization's console settings" })
  @ApiConsoleRoute()
  @RequirePermissions('USE_CONSOLE')
  get(@CurrentUser() user: ConsolePrincipal): Promise<ConsoleSettingsResponseDto> {
    return this.queries.execute(new GetConsoleSettingsQuery(user.orgId));
  }
}
