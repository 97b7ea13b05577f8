import { Body, Controller, Put, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ChangeSsoSettingsCommand } from '#warden/catalog';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions, RecentSignIn } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { GetSsoSettingsQuery } from '../../queries/get-sso-settings/get-sso-settings.query.js';
import { SsoSettingsResponseDto } from '../../queries/get-sso-settings/sso-settings.response.dto.js';
import { ChangeSsoSettingsRequestDto } from './change-sso-settings.request.dto.js';

@Controller('api/console/v1/sso')
export class ChangeSsoSettingsHttpController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Put()
  @ApiOperation({
    operationId: 'consoleChangeSsoSettings',
    summary: "Replace the organization's SSO settings, checked as the configuration file's `sso:` section is",
    description:
      "A field left out takes its default, except `cert`: left out, the stored certificate is kept. 400 with a pointer for what the file would refuse (a certificate that does not parse, passwordLogin false without SAML, roleMap without roleAttribute, SAML without sso_url or certificate, JIT without roles). An unchanged request records nothing. 409 when the organization's configuration file set the settings (`managedBy: file`) and does not hand them to the console (`management: { sso: console }`): the detail names the file. Under console management a later `warden apply` leaves the console's settings alone; `warden apply --dry-run` lists them as drift.",
  })
  @ApiOkResponse({ type: SsoSettingsResponseDto, description: 'The settings now in force' })
  @ApiConsoleRoute({ recentSignIn: true }, 400, 409)
  @RequirePermissions('MANAGE_SSO')
  @RecentSignIn()
  async change(
    @Body() body: ChangeSsoSettingsRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<SsoSettingsResponseDto> {
    // The DTO instance has every declared field; those the request left out are undefined.
    const settings = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
    await this.commands.execute(new ChangeSsoSettingsCommand(user.orgId, settings, consoleCommandContext(user, request.id)));
    return this.queries.execute(new GetSsoSettingsQuery(user.orgId));
  }
}
