export { SsoModule } from './sso.module.js';
export { StartSamlLoginCommand } from './commands/start-saml-login/start-saml-login.command.js';
export { CompleteSamlLoginCommand } from './commands/complete-saml-login/complete-saml-login.command.js';
export { GetSsoSettingsQuery, type SsoSettingsView, type CertificateSummary } from './queries/get-sso-settings/get-sso-settings.query.js';
export { GetSamlMetadataQuery } from './queries/get-saml-metadata/get-saml-metadata.query.js';
export type { SamlAssertionAccepted, SsoLoginFailed, SsoRefusalReason } from './domain/sso.events.js';
export { SSO_REFUSAL_REASONS } from './domain/sso.events.js';
