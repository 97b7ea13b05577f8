import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { ProjectionHost } from '#warden/platform';
import { ApplyConfigurationHandler } from './commands/apply-configuration/apply-configuration.handler.js';
import { catalogProjection } from './projections/catalog.projection.js';
import { CatalogReader } from './queries/catalog-reader.js';
import { ListActionsHandler } from './queries/list-actions/list-actions.handler.js';
import { ListActionsHttpController } from './queries/list-actions/list-actions.http.controller.js';
import { ListItemTypesHandler } from './queries/list-item-types/list-item-types.handler.js';
import { ListItemTypesHttpController } from './queries/list-item-types/list-item-types.http.controller.js';
import { ListPoliciesHandler } from './queries/list-policies/list-policies.handler.js';
import { ListPoliciesHttpController } from './queries/list-policies/list-policies.http.controller.js';

/** The moderation catalog: configuration as code, and the read endpoints over it. */
@Module({})
export class CatalogModule implements OnModuleInit {
  constructor(@Inject(ProjectionHost) private readonly projections: ProjectionHost) {}

  static register(options: { http: boolean }): DynamicModule {
    return {
      module: CatalogModule,
      // Global: other modules read the catalog through its exported contract without importing the module.
      global: true,
      controllers: options.http ? [ListPoliciesHttpController, ListActionsHttpController, ListItemTypesHttpController] : [],
      providers: [ApplyConfigurationHandler, ListPoliciesHandler, ListActionsHandler, ListItemTypesHandler, CatalogReader],
      exports: [CatalogReader],
    };
  }

  onModuleInit(): void {
    this.projections.register(catalogProjection);
  }
}
