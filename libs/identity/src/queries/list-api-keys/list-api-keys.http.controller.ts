import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ListApiKeysQuery } from './list-api-keys.query.js';
import { ApiKeyListResponseDto } from './list-api-keys.response.dto.js';

@Controller('api/console/v1/api-keys')
export class ListApiKeysHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({ operationId: 'consoleListApiKeys', summary: "The organization's API keys with their last use; never the keys themselves" })
  @ApiOkResponse({ type: ApiKeyListResponseDto, description: "The organization's keys" })
  @ApiConsoleRoute()
  @RequirePermissions('MANAGE_API_KEYS')
  async list(@CurrentUser() user: ConsolePrincipal): Promise<ApiKeyListResponseDto> {
    return { keys: await this.queries.execute(new ListApiKeysQuery(user.orgId)) };
  }
}
