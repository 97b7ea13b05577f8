import { Module } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { CompleteSamlLoginHandler } from './commands/complete-saml-login/complete-saml-login.handler.js';
import { StartSamlLoginHandler } from './commands/start-saml-login/start-saml-login.handler.js';
import { GetSsoSettingsHandler } from './queries/get-sso-settings/get-sso-settings.handler.js';
import { GetSamlMetadataHandler } from './queries/get-saml-metadata/get-saml-metadata.handler.js';
import { IsPasswordLoginAllowedHandler } from './queries/is-password-login-allowed/is-password-login-allowed.handler.js';
import { SamlServiceProvider } from './saml/saml-service-provider.js';
import { SsoSettingsReader } from './saml/sso-settings.reader.js';
import { IdentitySsoSignIn } from './identity-sso-sign-in.js';
import { SSO_SIGN_IN } from './sso-sign-in.port.js';

/**
 * Per-organization SAML single sign-on to the console. A module of its own, not part of
 * identity: it reads the catalog's `sso:` settings, and the catalog already depends on identity
 * (apply configures organizations and users), so identity could not import the catalog back.
 * The routes are SsoHttpModule's (`#warden/sso/http`).
 */
@Module({
  imports: [CatalogModule],
  providers: [
    StartSamlLoginHandler,
    CompleteSamlLoginHandler,
    GetSamlMetadataHandler,
    GetSsoSettingsHandler,
    IsPasswordLoginAllowedHandler,
    SamlServiceProvider,
    SsoSettingsReader,
    { provide: SSO_SIGN_IN, useClass: IdentitySsoSignIn },
  ],
})
export class SsoModule {}
