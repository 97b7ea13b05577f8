import { Module } from '@nestjs/common';
import { ConsoleSessionHttpController } from './commands/password-login/console-session.http.controller.js';
import { GetOrganizationHttpController } from './queries/get-organization/get-organization.http.controller.js';
import { ConfirmSecondFactorHttpController } from './commands/confirm-second-factor/confirm-second-factor.http.controller.js';
import { DisableSecondFactorHttpController } from './commands/disable-second-factor/disable-second-factor.http.controller.js';
import { StartSecondFactorEnrollmentHttpController } from './commands/start-second-factor-enrollment/start-second-factor-enrollment.http.controller.js';
import { GetSecondFactorStatusHttpController } from './queries/get-second-factor-status/get-second-factor-status.http.controller.js';

/**
 * The identity module's routes of the customer API: the calling key's organization.
 * Its controllers only use the command and query buses; the handlers are IdentityModule's,
 * composed by every process, while this module is composed only where HTTP is served.
 */
@Module({
  controllers: [
    GetOrganizationHttpController,
    ConsoleSessionHttpController,
    GetSecondFactorStatusHttpController,
    StartSecondFactorEnrollmentHttpController,
    ConfirmSecondFactorHttpController,
    DisableSecondFactorHttpController,
  ],
})
export class IdentityHttpModule {}
