import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { UpcasterRegistry } from '#warden/kernel';
import { ProjectionHost, KEYRING, type Keyring } from '#warden/storage';
import { ApplyConfigurationHandler } from './commands/apply-configuration/apply-configuration.handler.js';
import { ChangeSsoSettingsHandler } from './commands/change-sso-settings/change-sso-settings.handler.js';
import { DefineQueueHandler } from './commands/define-queue/define-queue.handler.js';
import { catalogProjection } from './projections/catalog.projection.js';
import { CatalogReader } from './queries/catalog-reader.js';
import { GetConfigManagementHandler } from './queries/get-config-management/get-config-management.handler.js';
import { GetCatalogSettingsHandler } from './queries/get-catalog-settings/get-catalog-settings.handler.js';
import { GetLiveEntitiesHandler } from './queries/get-live-entities/get-live-entities.handler.js';
import { GetLiveCatalogHandler } from './queries/get-live-catalog/get-live-catalog.handler.js';
import { GetEverEntitiesHandler } from './queries/get-ever-entities/get-ever-entities.handler.js';
import { ListActionsHandler } from './queries/list-actions/list-actions.handler.js';
import { ListItemTypesHandler } from './queries/list-item-types/list-item-types.handler.js';
import { ListPoliciesHandler } from './queries/list-policies/list-policies.handler.js';
import { callbackUrlUpcasters } from './secrets/callback-url.upcasters.js';
import { orgSettingsUpcasters } from './domain/org-settings.upcasters.js';
import { GetConsoleSettingsHandler } from './queries/get-console-settings/get-console-settings.handler.js';
import { ssoSettingsUpcasters } from './domain/sso-settings.upcasters.js';
import { queueDefinitionUpcasters } from './domain/queue-definition.upcasters.js';
import { definitionSourceUpcasters } from './domain/definition-source.upcasters.js';

/**
 * The moderation catalog: configuration as code and its read model. Modules that read the catalog
 * import this module (one instance, whoever imports it) and ask through its queries; the routes
 * are CatalogHttpModule's (`#warden/catalog/http`).
 */
@Module({
  providers: [
    ApplyConfigurationHandler,
    ChangeSsoSettingsHandler,
    DefineQueueHandler,
    ListPoliciesHandler,
    ListActionsHandler,
    ListItemTypesHandler,
    GetLiveEntitiesHandler,
    GetLiveCatalogHandler,
    GetEverEntitiesHandler,
    GetCatalogSettingsHandler,
    GetConfigManagementHandler,
    GetConsoleSettingsHandler,
    CatalogReader,
  ],
})
export class CatalogModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(UpcasterRegistry) private readonly upcasters: UpcasterRegistry,
    @Inject(KEYRING) private readonly keyring: Keyring,
  ) {}

  onModuleInit(): void {
    this.upcasters.register(...callbackUrlUpcasters(this.keyring));
    this.upcasters.register(...orgSettingsUpcasters);
    this.upcasters.register(...ssoSettingsUpcasters);
    this.upcasters.register(...queueDefinitionUpcasters);
    this.upcasters.register(...definitionSourceUpcasters);
    this.projections.register(catalogProjection);
  }
}
