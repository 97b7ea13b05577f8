import { Module } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { CompleteSamlLoginHandler } from './commands/complete-saml-login/complete-saml-login.handler.js';
import { StartSamlLoginHandler } from './commands/start-saml-login/start-saml-login.handler.js';
import { GetSsoSettingsHandler } from './queries/get-sso-settings/get-sso-settings.handler.js';
import { GetSamlMetadataHandler } from './queries/get-saml-metadata/get-saml-metadata.handler.js';
import { GetSamlSignInTargetHandler } from './queries/get-saml-sign-in-target/get-saml-sign-in-target.handler.js';
import { LoginThrottle, PASSWORD_LOGIN_POLICY } from '#warden/identity';
import { SsoPasswordLoginPolicy } from './saml/password-login-policy.js';
import { SamlServiceProvider } from './saml/saml-service-provider.js';
import { SsoSettingsReader } from './saml/sso-settings.reader.js';
import { SsoUserSignIn } from './sso-user-sign-in.js';

/**
 * Per-organization SAML single sign-on to the console. A module of its own, not part of
 * identity: it reads the catalog's `sso:` settings, and the catalog already depends on identity
 * (apply configures organizations and users), so identity could not import the catalog back.
 * The routes are SsoHttpModule's (`#warden/sso/http`). For the same reason identity asks it whether
 * an organization may sign in with passwords through a port (PASSWORD_LOGIN_POLICY) it declares.
 */
@Module({
  imports: [CatalogModule],
  providers: [
    StartSamlLoginHandler,
    CompleteSamlLoginHandler,
    GetSamlMetadataHandler,
    GetSamlSignInTargetHandler,
    GetSsoSettingsHandler,
    SamlServiceProvider,
    SsoSettingsReader,
    SsoUserSignIn,
    SsoPasswordLoginPolicy,
    // Identity's throttle of failed sign-ins, over the same read-store collection: the ACS counts
    // its refusals with it (identity imports this module for its port, so not the other way round).
    LoginThrottle,
    { provide: PASSWORD_LOGIN_POLICY, useExisting: SsoPasswordLoginPolicy },
  ],
  // Identity's PASSWORD_LOGIN_POLICY port, composed in app.module.ts (docs/architecture.md, "Ports").
  exports: [PASSWORD_LOGIN_POLICY],
})
export class SsoModule {}
