import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetCatalogSettingsQuery } from '#warden/catalog';
import type { SsoSettings } from '#warden/catalog/contracts';
import { GetOrganizationQuery } from '#warden/identity';
import { isSealedSecret, KEYRING, type Keyring, type SealedSecret } from '#warden/storage';
import { ssoRefused } from '../domain/sso-refusal.js';
import type { SamlOrganization } from './saml-service-provider.js';

/** What an organization that never applied an `sso:` section has (docs/configuration-as-code.md, "The `sso:` section"). */
const DEFAULTS: SsoSettings = {
  saml_enabled: false,
  sso_url: null,
  cert: null,
  passwordLogin: true,
  jit: { enabled: false, defaultRoles: [] },
  roleAttribute: null,
  roleMap: {},
  wantAssertionsSigned: true,
};

/** An organization's live SSO settings, from the catalog (as `warden apply` last set them). */
@Injectable()
export class SsoSettingsReader {
  constructor(
    private readonly queries: QueryBus,
    @Inject(KEYRING) private readonly keyring: Keyring,
  ) {}

  /** Throws not-found for an unknown organization (404): its id came from the URL. */
  async exists(orgId: string): Promise<void> {
    await this.queries.execute(new GetOrganizationQuery(orgId));
  }

  /** The organization's `sso:` settings as applied, with the defaults for what it never set. */
  async signInSettings(orgId: string): Promise<SsoSettings> {
    // A read model built before the sso additions lacks them until rebuilt: the defaults fill in.
    const stored = await this.queries.execute(new GetCatalogSettingsQuery(orgId, 'sso'));
    return { ...DEFAULTS, ...stored };
  }

  /** The organization, when it signs in with SAML; else refused as `saml-disabled`. */
  async samlOrganization(orgId: string): Promise<SamlOrganization> {
    await this.exists(orgId);
    const settings = await this.signInSettings(orgId);
    const cert = this.openCertificate(settings.cert);
    if (!settings.saml_enabled || settings.sso_url === null || cert === null) throw ssoRefused('saml-disabled');
    return { orgId, settings: { ...settings, sso_url: settings.sso_url, cert } };
  }

  /** The certificate is sealed in the catalog (catalog-secrets.ts); opened only here, never returned as is. */
  openCertificate(cert: unknown): string | null {
    if (cert === null || cert === undefined) return null;
    return isSealedSecret(cert) ? this.keyring.open(cert as SealedSecret) : String(cert);
  }
}
