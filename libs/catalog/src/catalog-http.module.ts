import { Module } from '@nestjs/common';
import { ListPoliciesHttpController } from './queries/list-policies/list-policies.http.controller.js';
import { ListActionsHttpController } from './queries/list-actions/list-actions.http.controller.js';
import { ListItemTypesHttpController } from './queries/list-item-types/list-item-types.http.controller.js';
import { ConsoleListPoliciesHttpController } from './queries/list-policies/console-list-policies.http.controller.js';
import { ConsoleListActionsHttpController } from './queries/list-actions/console-list-actions.http.controller.js';
import { GetConsoleSettingsHttpController } from './queries/get-console-settings/get-console-settings.http.controller.js';

/**
 * The catalog's read endpoints of the customer API, and their console twins with the console's settings.
 * Its controllers only use the command and query buses; the handlers are CatalogModule's,
 * composed by every process, while this module is composed only where HTTP is served.
 */
@Module({
  controllers: [
    ListPoliciesHttpController,
    ListActionsHttpController,
    ListItemTypesHttpController,
    ConsoleListPoliciesHttpController,
    ConsoleListActionsHttpController,
    GetConsoleSettingsHttpController,
  ],
})
export class CatalogHttpModule {}
