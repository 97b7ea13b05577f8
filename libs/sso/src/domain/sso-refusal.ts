import { DomainError } from '#warden/kernel';
import type { SsoRefusalReason } from './sso.events.js';

const DETAIL: Record<SsoRefusalReason, string> = {
  'saml-disabled': 'SAML single sign-on is not enabled for this organization',
  'malformed-response': 'The SAML response could not be read',
  unsigned: 'The SAML response carries no signature',
  'bad-signature': "The SAML response's signature does not verify against the organization's IdP certificate",
  'wrong-audience': 'The SAML assertion is addressed to another service provider (audience)',
  'wrong-destination': "The SAML response is addressed to another endpoint (Destination) than this organization's ACS URL",
  'wrong-recipient': "The SAML assertion is addressed to another endpoint (Recipient) than this organization's ACS URL",
  'sha1-signature': 'The SAML response is signed with SHA-1, which this service does not accept (WARDEN_SAML_ALLOW_SHA1): have the IdP sign with SHA-256',
  expired: 'The SAML assertion has expired',
  'not-yet-valid': 'The SAML assertion is not valid yet',
  'unknown-request': 'The SAML response answers no sign-in request this service made (or that request expired)',
  'unbound-request':
    'The SAML response answers a sign-in that was not started in this browser (or a newer one was started since): start again from the sign-in page',
  replayed: 'The SAML assertion was used already',
  'idp-error': 'The identity provider reported that sign-in failed',
  'no-email': 'The SAML assertion names no email address a console account may have (NameID or an email attribute)',
  'no-role': "The user's IdP groups grant no role in this organization (roleMap), and there are no default roles",
  // The user-level reasons share one text: the response does not tell who exists where.
  'unknown-user': 'This account cannot sign in to this organization',
  'user-of-another-organization': 'This account cannot sign in to this organization',
  'user-disabled': 'This account cannot sign in to this organization',
  'user-not-active': 'This account cannot sign in to this organization',
  'response-too-large': 'The SAML response is larger than this service accepts (WARDEN_SAML_BODY_LIMIT_BYTES): it was not read',
  'too-many-elements': 'The SAML response has more XML elements than this service accepts (WARDEN_SAML_MAX_ELEMENTS): it was not parsed',
  'too-complex':
    'The SAML response nests its XML deeper, gives an element more attributes or namespaces, or carries a larger signature, than this service accepts: it was not verified',
};

/** Refused before anything about a user was looked at: the organization forbids SAML, or a user rule. */
const FORBIDDEN: ReadonlySet<SsoRefusalReason> = new Set([
  'saml-disabled',
  'no-role',
  'unknown-user',
  'user-of-another-organization',
  'user-disabled',
  'user-not-active',
]);

/** Refused for its size alone, whoever sent it: 413, as for any body over a limit. */
const TOO_LARGE: ReadonlySet<SsoRefusalReason> = new Set(['response-too-large', 'too-many-elements', 'too-complex']);

/** A refused SSO sign-in; `reason` is what the failure event records. */
export class SsoRefusal extends DomainError {
  constructor(readonly reason: SsoRefusalReason) {
    super(TOO_LARGE.has(reason) ? 'payload-too-large' : FORBIDDEN.has(reason) ? 'forbidden' : 'unauthorized', [
      { title: 'Single sign-on refused', detail: DETAIL[reason] },
    ]);
  }
}

export const ssoRefused = (reason: SsoRefusalReason): SsoRefusal => new SsoRefusal(reason);

/**
 * node-saml reports every failed check as a plain Error with a message; these are its messages
 * (5.x), mapped to what an operator can act on. Anything else is a response we could not read.
 */
export function refusalReasonOf(message: string): SsoRefusalReason {
  const rules: ReadonlyArray<[RegExp, SsoRefusalReason]> = [
    [/InResponseTo/i, 'unknown-request'],
    [/audience/i, 'wrong-audience'],
    [/expired/i, 'expired'],
    [/not yet valid/i, 'not-yet-valid'],
    [/No valid subject confirmation/i, 'expired'],
    [/invalid (document )?signature|Invalid signature/i, 'bad-signature'],
    [/Bad status code|SAML provider returned/i, 'idp-error'],
  ];
  for (const [pattern, reason] of rules) if (pattern.test(message)) return reason;
  return 'malformed-response';
}
