import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { SamlServiceProvider } from '../../saml/saml-service-provider.js';
import { SsoSettingsReader } from '../../saml/sso-settings.reader.js';
import { GetSamlMetadataQuery } from './get-saml-metadata.query.js';

/** Served whether SAML is enabled or not yet: the IdP is set up from it before SAML is switched on. */
@QueryHandler(GetSamlMetadataQuery)
export class GetSamlMetadataHandler implements IQueryHandler<GetSamlMetadataQuery> {
  constructor(
    private readonly settings: SsoSettingsReader,
    private readonly provider: SamlServiceProvider,
  ) {}

  async execute(query: GetSamlMetadataQuery): Promise<string> {
    await this.settings.exists(query.orgId);
    return this.provider.metadata(query.orgId);
  }
}
