import { type DynamicModule, Inject, Module, type OnModuleInit, type Type } from '@nestjs/common';
import { PersonalDataPolicy } from '#warden/eventstore';
import { API_KEY_AUTHENTICATOR, CONSOLE_AUTHENTICATOR } from '#warden/platform';
import { ProjectionHost } from '#warden/storage';
import { IDENTITY_PERSONAL_DATA } from './contracts.js';
import { CachedApiKeyAuthenticator } from './api-key-authenticator.js';
import { CreateApiKeyHandler } from './commands/create-api-key/create-api-key.handler.js';
import { ConfigureOrganizationHandler } from './commands/configure-organization/configure-organization.handler.js';
import { CreateOrganizationHandler } from './commands/create-organization/create-organization.handler.js';
import { RevokeApiKeyHandler } from './commands/revoke-api-key/revoke-api-key.handler.js';
import { RotateApiKeyHandler } from './commands/rotate-api-key/rotate-api-key.handler.js';
import { identityProjection } from './projections/identity.projection.js';
import { GetOrganizationHandler } from './queries/get-organization/get-organization.handler.js';
import { ListApiKeysHandler } from './queries/list-api-keys/list-api-keys.handler.js';
import { ChangeUserRolesHandler } from './commands/change-user-roles/change-user-roles.handler.js';
import { CloseConsoleSessionHandler } from './commands/close-console-session/close-console-session.handler.js';
import { PasswordHashing } from './password-hashing.js';
import { CreateUserHandler } from './commands/create-user/create-user.handler.js';
import { DisableUserHandler } from './commands/disable-user/disable-user.handler.js';
import { OpenConsoleSessionHandler } from './commands/open-console-session/open-console-session.handler.js';
import { PasswordLoginHandler } from './commands/password-login/password-login.handler.js';
import { SetUserPasswordHandler } from './commands/set-user-password/set-user-password.handler.js';
import { SessionConsoleAuthenticator } from './console-authenticator.js';
import { SessionActivity } from './session-activity.js';
import { LoginThrottle } from './login-throttle.js';
import { usersProjection } from './projections/users.projection.js';
import { FindUserByEmailHandler } from './queries/find-user-by-email/find-user-by-email.handler.js';
import { GetUserHandler } from './queries/get-user/get-user.handler.js';
import { ListUsersHandler } from './queries/list-users/list-users.handler.js';
import { UserDirectory } from './user-directory.js';
import { CheckSecondFactorHandler } from './commands/check-second-factor/check-second-factor.handler.js';
import { ConfirmSecondFactorHandler } from './commands/confirm-second-factor/confirm-second-factor.handler.js';
import { DisableSecondFactorHandler } from './commands/disable-second-factor/disable-second-factor.handler.js';
import { StartSecondFactorEnrollmentHandler } from './commands/start-second-factor-enrollment/start-second-factor-enrollment.handler.js';
import { secondFactorProjection } from './projections/second-factor.projection.js';
import { GetSecondFactorStatusHandler } from './queries/get-second-factor-status/get-second-factor-status.handler.js';
import { SecondFactorEnforcement } from './second-factor-enforcement.js';
import { SecondFactorProofs } from './second-factor-proofs.js';
import { AcceptInvitationHandler } from './commands/accept-invitation/accept-invitation.handler.js';
import { ApplyUsersHandler } from './commands/apply-users/apply-users.handler.js';
import { InviteUserHandler } from './commands/invite-user/invite-user.handler.js';
import { LastAdminSafeguard } from './last-admin-safeguard.js';
import { ReadOnlySessions } from './read-only-sessions.js';
import { RecordInvestigationViewHandler } from './commands/record-investigation-view/record-investigation-view.handler.js';

export interface IdentityOptions {
  /**
   * The module that provides PASSWORD_LOGIN_POLICY (sso): an organization that signs in through
   * its IdP only then refuses passwords. Without it every organization may use passwords
   * (password-login.port.ts; docs/architecture.md, "Ports").
   */
  readonly passwordLogin?: Type<unknown>;
}

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
    UserDirectory,
    LoginThrottle,
    PasswordHashing,
    CreateUserHandler,
    SetUserPasswordHandler,
    ChangeUserRolesHandler,
    DisableUserHandler,
    OpenConsoleSessionHandler,
    CloseConsoleSessionHandler,
    PasswordLoginHandler,
    FindUserByEmailHandler,
    GetUserHandler,
    ListUsersHandler,
    SessionActivity,
    SessionConsoleAuthenticator,
    { provide: CONSOLE_AUTHENTICATOR, useExisting: SessionConsoleAuthenticator },
    SecondFactorProofs,
    SecondFactorEnforcement,
    StartSecondFactorEnrollmentHandler,
    ConfirmSecondFactorHandler,
    DisableSecondFactorHandler,
    CheckSecondFactorHandler,
    GetSecondFactorStatusHandler,
    LastAdminSafeguard,
    ReadOnlySessions,
    InviteUserHandler,
    AcceptInvitationHandler,
    ApplyUsersHandler,
    RecordInvestigationViewHandler,
  ],
  exports: [API_KEY_AUTHENTICATOR, CONSOLE_AUTHENTICATOR],
})
export class IdentityModule implements OnModuleInit {
  static register(options: IdentityOptions): DynamicModule {
    return {
      module: IdentityModule,
      // Beside the decorator's: the module that provides its port.
      imports: options.passwordLogin ? [options.passwordLogin] : [],
    };
  }

  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy,
  ) {}

  onModuleInit(): void {
    this.projections.register(identityProjection);
    this.projections.register(usersProjection);
    // The rules of the events this module owns, declared beside them (contracts.ts).
    this.personalData.registerAll(IDENTITY_PERSONAL_DATA);
    this.projections.register(secondFactorProjection);
  }
}
