import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { GetSecondFactorStatusQuery } from './get-second-factor-status.query.js';
import { SecondFactorStatusResponseDto } from './get-second-factor-status.response.dto.js';

@Controller('api/console/v1/me/second-factor')
export class GetSecondFactorStatusHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({ operationId: 'consoleGetSecondFactor', summary: "The signed-in user's second factor: none, pending or active, and recovery codes left" })
  @ApiOkResponse({ type: SecondFactorStatusResponseDto, description: "The second factor's state" })
  @ApiConsoleRoute()
  @RequirePermissions('USE_CONSOLE')
  status(@CurrentUser() user: ConsolePrincipal): Promise<SecondFactorStatusResponseDto> {
    return this.queries.execute(new GetSecondFactorStatusQuery(user.orgId, user.userId));
  }
}
