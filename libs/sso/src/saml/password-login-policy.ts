import { Injectable } from '@nestjs/common';
import type { PasswordLoginPolicy } from '#warden/identity';
import { SsoSettingsReader } from './sso-settings.reader.js';

/**
 * The SSO module's side of identity's PASSWORD_LOGIN_POLICY port: `sso.passwordLogin: false`
 * (only valid with SAML on) means the organization signs in through its IdP only.
 */
@Injectable()
export class SsoPasswordLoginPolicy implements PasswordLoginPolicy {
  constructor(private readonly settings: SsoSettingsReader) {}

  async passwordLoginAllowed(orgId: string): Promise<boolean> {
    return (await this.settings.signInSettings(orgId)).passwordLogin;
  }
}
