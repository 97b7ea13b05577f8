export * from './contracts.js';
export { CatalogHttpModule, CatalogModule } from './catalog.module.js';
export { ApplyConfigurationCommand, type ApplyReport } from './commands/apply-configuration/apply-configuration.command.js';
export { ListPoliciesQuery, type PolicyView } from './queries/list-policies/list-policies.query.js';
export { ListActionsQuery, type ActionView } from './queries/list-actions/list-actions.query.js';
export { ListItemTypesQuery, type ItemTypeView } from './queries/list-item-types/list-item-types.query.js';
export { CatalogReader } from './queries/catalog-reader.js';
