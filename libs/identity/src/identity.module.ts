import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { API_KEY_AUTHENTICATOR } from '#warden/platform';
import { ProjectionHost } from '#warden/storage';
import { CachedApiKeyAuthenticator } from './api-key-authenticator.js';
import { CreateApiKeyHandler } from './commands/create-api-key/create-api-key.handler.js';
import { ConfigureOrganizationHandler } from './commands/configure-organization/configure-organization.handler.js';
import { CreateOrganizationHandler } from './commands/create-organization/create-organization.handler.js';
import { RevokeApiKeyHandler } from './commands/revoke-api-key/revoke-api-key.handler.js';
import { RotateApiKeyHandler } from './commands/rotate-api-key/rotate-api-key.handler.js';
import { identityProjection } from './projections/identity.projection.js';
import { GetOrganizationHandler } from './queries/get-organization/get-organization.handler.js';
import { ListApiKeysHandler } from './queries/list-api-keys/list-api-keys.handler.js';
import { CheckSecondFactorHandler } from './commands/check-second-factor/check-second-factor.handler.js';
import { ConfirmSecondFactorHandler } from './commands/confirm-second-factor/confirm-second-factor.handler.js';
import { DisableSecondFactorHandler } from './commands/disable-second-factor/disable-second-factor.handler.js';
import { StartSecondFactorEnrollmentHandler } from './commands/start-second-factor-enrollment/start-second-factor-enrollment.handler.js';
import { secondFactorProjection } from './projections/second-factor.projection.js';
import { GetSecondFactorStatusHandler } from './queries/get-second-factor-status/get-second-factor-status.handler.js';
import { SecondFactorEnforcement } from './second-factor-enforcement.js';
import { SecondFactorProofs } from './second-factor-proofs.js';

/** Organizations and API keys (event-sourced), and API-key authentication; the routes are IdentityHttpModule's. */
@Module({
  providers: [
    CreateOrganizationHandler,
    ConfigureOrganizationHandler,
    CreateApiKeyHandler,
    RotateApiKeyHandler,
    RevokeApiKeyHandler,
    ListApiKeysHandler,
    GetOrganizationHandler,
    CachedApiKeyAuthenticator,
    { provide: API_KEY_AUTHENTICATOR, useExisting: CachedApiKeyAuthenticator },
    SecondFactorProofs,
    SecondFactorEnforcement,
    StartSecondFactorEnrollmentHandler,
    ConfirmSecondFactorHandler,
    DisableSecondFactorHandler,
    CheckSecondFactorHandler,
    GetSecondFactorStatusHandler,
  ],
  exports: [API_KEY_AUTHENTICATOR],
})
export class IdentityModule implements OnModuleInit {
  constructor(@Inject(ProjectionHost) private readonly projections: ProjectionHost) {}

  onModuleInit(): void {
    this.projections.register(identityProjection);
    this.projections.register(secondFactorProjection);
  }
}
