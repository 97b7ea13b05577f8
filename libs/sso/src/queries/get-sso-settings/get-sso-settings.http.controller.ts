import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { GetSsoSettingsQuery } from './get-sso-settings.query.js';
import { SsoSettingsResponseDto } from './sso-settings.response.dto.js';

@Controller('api/console/v1/sso')
export class GetSsoSettingsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleGetSsoSettings',
    summary: "The organization's SSO settings and the values to enter at the IdP; the certificate only as its fingerprint, subject and expiry",
  })
  @ApiOkResponse({ type: SsoSettingsResponseDto, description: "The organization's SSO settings, and what to enter at the IdP" })
  @ApiConsoleRoute()
  @RequirePermissions('MANAGE_SSO')
  async get(@CurrentUser() user: ConsolePrincipal): Promise<SsoSettingsResponseDto> {
    return this.queries.execute(new GetSsoSettingsQuery(user.orgId));
  }
}
