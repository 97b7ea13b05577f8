export { SsoModule } from './sso.module.js';
export { StartSamlLoginCommand } from './commands/start-saml-login/start-saml-login.command.js';
export { CompleteSamlLoginCommand } from './commands/complete-saml-login/complete-saml-login.command.js';
export { GetSsoSettingsQuery, type SsoSettingsView, type CertificateSummary } from './queries/get-sso-settings/get-sso-settings.query.js';
export { GetSamlMetadataQuery } from './queries/get-saml-metadata/get-saml-metadata.query.js';
export * from './contracts.js';
