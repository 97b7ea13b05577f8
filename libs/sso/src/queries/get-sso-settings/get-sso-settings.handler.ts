import { X509Certificate } from 'node:crypto';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetConfigManagementQuery } from '#warden/catalog';
import { SamlServiceProvider } from '../../saml/saml-service-provider.js';
import { SsoSettingsReader } from '../../saml/sso-settings.reader.js';
import { type CertificateSummary, GetSsoSettingsQuery, type SsoSettingsView } from './get-sso-settings.query.js';

@QueryHandler(GetSsoSettingsQuery)
export class GetSsoSettingsHandler implements IQueryHandler<GetSsoSettingsQuery> {
  constructor(
    private readonly settings: SsoSettingsReader,
    private readonly provider: SamlServiceProvider,
    private readonly queries: QueryBus,
  ) {}

  async execute(query: GetSsoSettingsQuery): Promise<SsoSettingsView> {
    const { orgId } = query;
    const { cert: sealed, ...settings } = await this.settings.signInSettings(orgId);
    const cert = this.settings.openCertificate(sealed);
    const { sso: managed } = await this.queries.execute(new GetConfigManagementQuery(orgId));
    return {
      ...settings,
      managedBy: managed.managedBy,
      file: managed.file,
      certificate: cert === null ? null : summarize(cert),
      serviceProvider: {
        entityId: this.provider.entityId(orgId),
        acsUrl: this.provider.acsUrl(orgId),
        metadataUrl: this.provider.entityId(orgId),
        loginUrl: this.provider.loginUrl(orgId),
      },
    };
  }
}

/**
 * Null also for a certificate that does not parse: a file may set one while SAML is off (it is
 * checked only with SAML on), and such a certificate could verify nothing.
 */
function summarize(pem: string): CertificateSummary | null {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(pem);
  } catch {
    return null;
  }
  return { fingerprintSha256: x509.fingerprint256, subject: x509.subject.split('\n').join(', '), notAfter: x509.validToDate.toISOString() };
}
