import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { IsPasswordLoginAllowedQuery } from '#warden/identity';
import { SsoSettingsReader } from '../../saml/sso-settings.reader.js';

/** `sso.passwordLogin: false` (only valid with SAML on): the organization signs in through its IdP only. */
@QueryHandler(IsPasswordLoginAllowedQuery)
export class IsPasswordLoginAllowedHandler implements IQueryHandler<IsPasswordLoginAllowedQuery> {
  constructor(private readonly settings: SsoSettingsReader) {}

  async execute(query: IsPasswordLoginAllowedQuery): Promise<boolean> {
    return (await this.settings.signInSettings(query.orgId)).passwordLogin;
  }
}
