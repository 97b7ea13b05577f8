import { type DynamicModule, Module } from '@nestjs/common';
import { CallbacksHttpModule } from '#warden/callbacks/http';
import { CatalogHttpModule } from '#warden/catalog/http';
import { IdentityHttpModule } from '#warden/identity/http';
import { IngestionHttpModule } from '#warden/ingestion/http';
import { PlatformHttpModule } from '#warden/platform/http';
import { RulesHttpModule } from '#warden/rules/http';
import { SsoHttpModule } from '#warden/sso/http';
import { ReviewHttpModule } from '#warden/review/http';
import { EnforcementHttpModule } from '#warden/enforcement/http';
import { AppealsHttpModule } from '#warden/appeals/http';
import { ErasureHttpModule } from '#warden/erasure/http';
import { AuditHttpModule } from '#warden/audit/http';
import { TransparencyHttpModule } from '#warden/transparency/http';
import { InsightsHttpModule } from '#warden/insights/http';
import type { AppOptions } from './app.module.js';

/**
 * The HTTP side of a server process, composed into AppModule by server.ts and the OpenAPI
 * generator (never by the CLI): the error filter and health routes in every role, the customer
 * API's routes where the role serves it. Listed in the order the document lists the routes.
 */
@Module({})
export class HttpSurfaceModule {
  static forRoles(roles: AppOptions): DynamicModule {
    return {
      module: HttpSurfaceModule,
      imports: [
        PlatformHttpModule,
        ...(roles.http
          ? [
              IdentityHttpModule,
              CatalogHttpModule,
              IngestionHttpModule,
              RulesHttpModule,
              CallbacksHttpModule,
              SsoHttpModule,
              ReviewHttpModule,
              EnforcementHttpModule,
              AppealsHttpModule,
              ErasureHttpModule,
              AuditHttpModule,
              TransparencyHttpModule,
              InsightsHttpModule,
            ]
          : []),
      ],
    };
  }
}
