import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { SamlHttpController } from './saml.http.controller.js';
import { installSamlFormBodyParser } from './saml-form-body.parser.js';
import { SSO_SESSION_COOKIE } from './sso-session-cookie.js';
import { IdentitySessionCookie } from './identity-session-cookie.js';

/** The SAML routes (login, ACS, metadata) and the form parser only the ACS accepts. */
@Module({
  controllers: [SamlHttpController],
  providers: [{ provide: SSO_SESSION_COOKIE, useClass: IdentitySessionCookie }],
})
export class SsoHttpModule implements OnModuleInit {
  constructor(@Inject(HttpAdapterHost) private readonly adapter: HttpAdapterHost) {}

  onModuleInit(): void {
    installSamlFormBodyParser(this.adapter.httpAdapter.getInstance<FastifyInstance>());
  }
}
