import { Query } from '@nestjs/cqrs';
import type { SsoSettings } from '#warden/catalog/contracts';

/** The certificate as the console shows it: never the PEM. */
export interface CertificateSummary {
  /** SHA-256 of the DER, upper-case hex pairs joined by colons (as IdP consoles show it). */
  readonly fingerprintSha256: string;
  readonly subject: string;
  /** When the certificate expires (ISO 8601): the IdP's signing key must be rolled over before. */
  readonly notAfter: string;
}

/** What an IdP administrator types in for this organization. */
export interface ServiceProviderValues {
  readonly entityId: string;
  readonly acsUrl: string;
  readonly metadataUrl: string;
  readonly loginUrl: string;
}

export type SsoSettingsView = Omit<SsoSettings, 'cert'> & {
  readonly certificate: CertificateSummary | null;
  readonly serviceProvider: ServiceProviderValues;
  readonly managedBy: 'file' | 'console';
  readonly file: string | null;
};

/** An organization's `sso:` settings as the console shows them (the certificate only summarized). */
export class GetSsoSettingsQuery extends Query<SsoSettingsView> {
  constructor(readonly orgId: string) {
    super();
  }
}
