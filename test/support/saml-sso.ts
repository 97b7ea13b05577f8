import { authnRequestOf } from './saml-idp.js';

/** What the SAML e2e servers run with: http://, a deployment without TLS (as in development). */
export const PUBLIC_URL = 'http://warden.test';
/** The test IdP's SSO URL (nothing listens there: the test plays the IdP). */
export const TEST_IDP_SSO_URL = 'https://test-idp.example/sso';

export const indent = (text: string, spaces: number) =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => ' '.repeat(spaces) + l)
    .join('\n');

/**
 * An organization's configuration file whose `sso:` section points at the test IdP with its
 * certificate; `sso` adds lines to that section (without indentation). `ssoUrl` replaces the
 * IdP address nobody listens at, for a test that runs a real IdP a browser can reach.
 */
export function samlOrgConfig(
  org: { id: string; name: string },
  cert: string,
  options: { samlEnabled?: boolean; sso?: readonly string[]; ssoUrl?: string } = {},
): string {
  return [
    `org: { id: ${org.id}, name: ${org.name} }`,
    'sso:',
    `  saml_enabled: ${options.samlEnabled ?? true}`,
    `  sso_url: ${options.ssoUrl ?? TEST_IDP_SSO_URL}`,
    '  cert: |',
    indent(cert, 4),
    ...(options.sso ?? []).map((line) => `  ${line}`),
    '',
  ].join('\n');
}

/** The SP's URLs for an organization, as the IdP is told them. */
export const spUrls = (orgId: string) => ({ audience: `${PUBLIC_URL}/saml/metadata/${orgId}`, acsUrl: `${PUBLIC_URL}/saml/acs/${orgId}` });

/** A sign-in started as a browser starts it: the AuthnRequest id and the cookie the browser keeps. */
export interface StartedSamlLogin {
  readonly requestId: string;
  /** `name=value` of the binding cookie, for a Cookie header. */
  readonly cookie: string;
  /** The whole Set-Cookie header, for its attributes. */
  readonly setCookie: string;
}

export async function startSamlLogin(baseUrl: string, orgId: string): Promise<StartedSamlLogin> {
  const res = await fetch(`${baseUrl}/saml/login/${orgId}`, { redirect: 'manual' });
  if (res.status !== 302) throw new Error(`GET /saml/login/${orgId}: ${res.status} ${await res.text()}`);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('warden_saml_request=')) ?? '';
  if (setCookie === '') throw new Error(`GET /saml/login/${orgId} set no warden_saml_request cookie`);
  return { requestId: authnRequestOf(res.headers.get('location')!).id, cookie: setCookie.split(';')[0]!, setCookie };
}

/** The form the IdP has the browser post: SAMLResponse, and RelayState when it sends one. */
export const samlForm = (SAMLResponse: string, relayState?: string) =>
  new URLSearchParams(relayState === undefined ? { SAMLResponse } : { SAMLResponse, RelayState: relayState }).toString();

/** The IdP's form post to the ACS, from a browser that sends `cookie` (null: none). */
export const postSamlResponse = (
  baseUrl: string,
  orgId: string,
  SAMLResponse: string,
  cookie: string | null,
  headers: Record<string, string> = {},
  relayState?: string,
) =>
  fetch(`${baseUrl}/saml/acs/${orgId}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie === null ? {} : { cookie }), ...headers },
    body: samlForm(SAMLResponse, relayState),
  });
