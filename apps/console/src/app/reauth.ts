/**
 * Set (in sessionStorage) when the user chose "Sign in again" after a recent-sign-in refusal
 * (docs/console-access.md, "Recent sign-in"): the next SSO sign-in asks the IdP to authenticate
 * them again (`reauth=1`, SAML ForceAuthn), so that an IdP's own session does not stand in for it.
 */
export const REAUTH_REQUESTED = 'warden.reauth-requested';
