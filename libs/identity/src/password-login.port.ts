/**
 * Whether an organization's users may sign in with a password (PASSWORD_LOGIN_POLICY): a port
 * identity declares for its password sign-in and the SSO module provides from the catalog's
 * `sso:` settings (`passwordLogin`), since the catalog depends on identity and cannot be read
 * from here. Optional: without the SSO module no organization can sign in through an IdP, so
 * every organization may use passwords (docs/architecture.md, "Ports"; docs/sso.md).
 */
export interface PasswordLoginPolicy {
  passwordLoginAllowed(orgId: string): Promise<boolean>;
}

export const PASSWORD_LOGIN_POLICY = Symbol('PasswordLoginPolicy');
