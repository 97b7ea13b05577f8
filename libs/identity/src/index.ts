export { IdentityModule } from './identity.module.js';
export { CreateOrganizationCommand } from './commands/create-organization/create-organization.command.js';
export { CreateApiKeyCommand, type CreatedApiKey } from './commands/create-api-key/create-api-key.command.js';
export { RotateApiKeyCommand } from './commands/rotate-api-key/rotate-api-key.command.js';
export { RevokeApiKeyCommand } from './commands/revoke-api-key/revoke-api-key.command.js';
export { ListApiKeysQuery, type ApiKeySummary } from './queries/list-api-keys/list-api-keys.query.js';
export { GetOrganizationQuery, type OrganizationView } from './queries/get-organization/get-organization.query.js';
export { ConfigureOrganizationCommand } from './commands/configure-organization/configure-organization.command.js';
