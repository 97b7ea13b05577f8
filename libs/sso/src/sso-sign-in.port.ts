import type { CommandContext } from '#warden/kernel';
import type { SamlIdentity } from './domain/saml-identity.js';
import type { SamlOrganization } from './saml/saml-service-provider.js';

/**
 * The last step of an SSO sign-in, after the response was verified and its assertion recorded:
 * the user found by email (or provisioned just in time), its roles set from the IdP's groups,
 * a console session opened. Refuses with an SsoRefusal for a user it must not let in.
 */
export interface SsoSignIn<Session = unknown> {
  signIn(org: SamlOrganization, identity: SamlIdentity, context: CommandContext): Promise<Session>;
}

export const SSO_SIGN_IN = Symbol('SsoSignIn');
