import { Module } from '@nestjs/common';
import { ConsoleSessionHttpController } from './commands/password-login/console-session.http.controller.js';
import { GetOrganizationHttpController } from './queries/get-organization/get-organization.http.controller.js';

/**
 * The identity module's routes of the customer API: the calling key's organization.
 * Its controllers only use the command and query buses; the handlers are IdentityModule's,
 * composed by every process, while this module is composed only where HTTP is served.
 */
@Module({ controllers: [GetOrganizationHttpController, ConsoleSessionHttpController] })
export class IdentityHttpModule {}
