import { Module } from '@nestjs/common';
import { CreateApiKeyHttpController } from './commands/create-api-key/create-api-key.http.controller.js';
import { ConsoleSessionHttpController } from './commands/password-login/console-session.http.controller.js';
import { RevokeApiKeyHttpController } from './commands/revoke-api-key/revoke-api-key.http.controller.js';
import { RotateApiKeyHttpController } from './commands/rotate-api-key/rotate-api-key.http.controller.js';
import { GetOrganizationHttpController } from './queries/get-organization/get-organization.http.controller.js';
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
    ListApiKeysHttpController,
    CreateApiKeyHttpController,
    RotateApiKeyHttpController,
    RevokeApiKeyHttpController,
  ],
})
export class IdentityHttpModule {}
