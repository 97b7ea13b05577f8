import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetOrganizationQuery } from '#warden/identity';
import { SsoSettingsReader } from '../../saml/sso-settings.reader.js';
import { GetSamlSignInTargetQuery, type SamlSignInTarget } from './get-saml-sign-in-target.query.js';

/** Refuses as the login does (unknown organization, SAML not enabled): the page never names a host the login would not go to. */
@QueryHandler(GetSamlSignInTargetQuery)
export class GetSamlSignInTargetHandler implements IQueryHandler<GetSamlSignInTargetQuery> {
  constructor(
    private readonly settings: SsoSettingsReader,
    private readonly queries: QueryBus,
  ) {}

  async execute({ orgId }: GetSamlSignInTargetQuery): Promise<SamlSignInTarget> {
    const org = await this.settings.samlOrganization(orgId);
    const { name } = await this.queries.execute(new GetOrganizationQuery(orgId));
    return { orgId, orgName: name, idpHost: new URL(org.settings.sso_url).host };
  }
}
