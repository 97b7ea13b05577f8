import { Module } from '@nestjs/common';
import { AcceptInvitationHttpController } from './commands/accept-invitation/accept-invitation.http.controller.js';
import { ChangeUserRolesHttpController } from './commands/change-user-roles/change-user-roles.http.controller.js';
import { DisableUserHttpController } from './commands/disable-user/disable-user.http.controller.js';
import { InviteUserHttpController } from './commands/invite-user/invite-user.http.controller.js';
import { GetUserHttpController } from './queries/get-user/get-user.http.controller.js';
import { ListUsersHttpController } from './queries/list-users/list-users.http.controller.js';
import { CreateApiKeyHttpController } from './commands/create-api-key/create-api-key.http.controller.js';
import { ConsoleSessionHttpController } from './commands/password-login/console-session.http.controller.js';
import { RevokeApiKeyHttpController } from './commands/revoke-api-key/revoke-api-key.http.controller.js';
import { RotateApiKeyHttpController } from './commands/rotate-api-key/rotate-api-key.http.controller.js';
import { GetOrganizationHttpController } from './queries/get-organization/get-organization.http.controller.js';
import { ConfirmSecondFactorHttpController } from './commands/confirm-second-factor/confirm-second-factor.http.controller.js';
import { DisableSecondFactorHttpController } from './commands/disable-second-factor/disable-second-factor.http.controller.js';
import { StartSecondFactorEnrollmentHttpController } from './commands/start-second-factor-enrollment/start-second-factor-enrollment.http.controller.js';
import { GetSecondFactorStatusHttpController } from './queries/get-second-factor-status/get-second-factor-status.http.controller.js';
import { ListApiKeysHttpController } from './queries/list-api-keys/list-api-keys.http.controller.js';

/**
 * The identity module's routes: the calling key's organization (customer API), console sign-in
 * and the console's access management. Its controllers only use the command and query buses; the
 * handlers are IdentityModule's, composed by every process, while this module is composed only
 * where HTTP is served.
 */
@Module({
  controllers: [
    GetOrganizationHttpController,
    ConsoleSessionHttpController,
    GetSecondFactorStatusHttpController,
    StartSecondFactorEnrollmentHttpController,
    ConfirmSecondFactorHttpController,
    DisableSecondFactorHttpController,
    ListApiKeysHttpController,
    CreateApiKeyHttpController,
    RotateApiKeyHttpController,
    RevokeApiKeyHttpController,
    ListUsersHttpController,
    GetUserHttpController,
    InviteUserHttpController,
    ChangeUserRolesHttpController,
    DisableUserHttpController,
    AcceptInvitationHttpController,
  ],
})
export class IdentityHttpModule {}
