export * from './contracts.js';
export { CatalogModule } from './catalog.module.js';
export { ApplyConfigurationCommand, type ApplyReport } from './commands/apply-configuration/apply-configuration.command.js';
export {
  ChangeSsoSettingsCommand,
  type ChangeSsoSettingsResult,
} from './commands/change-sso-settings/change-sso-settings.command.js';
export { ListPoliciesQuery, type PolicyView } from './queries/list-policies/list-policies.query.js';
export { ListActionsQuery, type ActionView } from './queries/list-actions/list-actions.query.js';
export { ListItemTypesQuery, type ItemTypeView } from './queries/list-item-types/list-item-types.query.js';
export { GetLiveEntitiesQuery } from './queries/get-live-entities/get-live-entities.query.js';
export { GetEverEntitiesQuery } from './queries/get-ever-entities/get-ever-entities.query.js';
export { GetCatalogSettingsQuery } from './queries/get-catalog-settings/get-catalog-settings.query.js';
export type { CatalogSettings } from './queries/catalog-reader.js';
export { DefineQueueCommand, type DefineQueueResult } from './commands/define-queue/define-queue.command.js';
export { CATALOG_PROJECTION } from './projections/catalog.projection.js';
export { type ConfigManagement, GetConfigManagementQuery } from './queries/get-config-management/get-config-management.query.js';
