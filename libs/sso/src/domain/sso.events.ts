import type { DomainEvent } from '#warden/kernel';

/**
 * An assertion was used to sign in. Its stream exists once per assertion id, so a second use of
 * the same assertion is refused on the write side (a replay). Only a digest of the id is kept.
 */
export type SamlAssertionAccepted = DomainEvent<'SamlAssertionAccepted', { orgId: string; assertionDigest: string; notOnOrAfter: string | null }>;

/**
 * An SSO sign-in was refused. No personal data: the reason says why, the request id (metadata
 * `correlationId`) ties it to the server's log line.
 */
export type SsoLoginFailed = DomainEvent<'SsoLoginFailed', { orgId: string; attemptId: string; reason: SsoRefusalReason }>;

export type SamlAssertionEvent = SamlAssertionAccepted;
export type SsoLoginEvent = SsoLoginFailed;

/** Why a SAML sign-in was refused (docs/sso.md lists them with what an operator should check). */
export const SSO_REFUSAL_REASONS = [
  'saml-disabled',
  'malformed-response',
  'unsigned',
  'bad-signature',
  'wrong-audience',
  'expired',
  'not-yet-valid',
  'unknown-request',
  'replayed',
  'idp-error',
  'no-email',
  'no-role',
  'unknown-user',
  'user-of-another-organization',
  'user-disabled',
  'user-not-active',
  'unbound-request',
  'response-too-large',
  'too-many-elements',
  'too-complex',
  'wrong-destination',
  'wrong-recipient',
  'sha1-signature',
] as const;
export type SsoRefusalReason = (typeof SSO_REFUSAL_REASONS)[number];
