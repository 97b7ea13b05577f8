import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { ChangeSsoSettingsHttpController } from '../commands/change-sso-settings/change-sso-settings.http.controller.js';
import { GetSsoSettingsHttpController } from '../queries/get-sso-settings/get-sso-settings.http.controller.js';
import { SamlHttpController } from './saml.http.controller.js';
import { installSamlFormBodyParser } from './saml-form-body.parser.js';

/** The SAML routes (login, ACS, metadata), the form parser only the ACS accepts, and the console's SSO settings. */
@Module({
  controllers: [SamlHttpController, GetSsoSettingsHttpController, ChangeSsoSettingsHttpController],
})
export class SsoHttpModule implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapter: HttpAdapterHost,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
  ) {}

  onModuleInit(): void {
    installSamlFormBodyParser(this.adapter.httpAdapter.getInstance<FastifyInstance>(), this.config.saml.bodyLimitBytes);
  }
}
