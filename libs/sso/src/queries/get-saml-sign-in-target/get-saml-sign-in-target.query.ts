import { Query } from '@nestjs/cqrs';

/** Where an organization's SAML sign-in sends the browser, as the sign-in confirmation page names it. */
export interface SamlSignInTarget {
  readonly orgId: string;
  readonly orgName: string;
  /** The host (and port, when not the default) of the organization's `sso_url`. */
  readonly idpHost: string;
}

/** The confirmation page's facts, for an organization that signs in with SAML (404 unknown, 403 not enabled). */
export class GetSamlSignInTargetQuery extends Query<SamlSignInTarget> {
  constructor(readonly orgId: string) {
    super();
  }
}
