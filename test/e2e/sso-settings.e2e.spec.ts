import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount, loggedEvents, rawLog } from '../support/config-files.js';
import { expectErrorBody } from '../support/error-body.js';
import { type IdpKeys, makeIdpKeys, samlResponse } from '../support/saml-idp.js';
import { postSamlResponse, PUBLIC_URL, samlOrgConfig, spUrls, startSamlLogin, TEST_IDP_SSO_URL } from '../support/saml-sso.js';
import { consoleLogin, consoleUserCommand, freshDataDir, runCliBatch, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/** Issue 12, items 3 and 5: an ADMIN reads and changes the organization's SSO settings in the console. */

const PASSWORD = 'correct horse battery staple';

// The files hand their SSO settings to the console (issue 30 item 17: otherwise the console may not change them).
const acmeConfig = (cert: string) =>
  `${samlOrgConfig({ id: 'acme', name: 'Acme' }, cert, { sso: ['jit: { enabled: true, defaultRoles: [MODERATOR] }'] })}\nmanagement: { sso: console }\n`;

type Session = { cookie: string; csrfToken: string };
type Json = Record<string, unknown>;

/** A line of the certificate's base64 body: what any plaintext copy of the PEM would contain, escaped or not. */
const pemMarker = (cert: string) => cert.split('\n').find((line) => /^[A-Za-z0-9+/]{60,}$/.test(line))!;

describe('SSO settings in the console (e2e)', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir, { WARDEN_PUBLIC_URL: PUBLIC_URL });
  let idp: IdpKeys;
  let rolledOver: IdpKeys;
  let warden: RunningWarden;
  let admin: Session;
  let moderator: Session;
  let adminId: string;

  let globexAdmin: Session;

  beforeAll(async () => {
    [idp, rolledOver] = await Promise.all([makeIdpKeys(), makeIdpKeys('next-idp.example')]);
    // A file may hold a certificate that does not parse while SAML is off: it is checked only with SAML on.
    const globex = join(freshDataDir(), 'globex.yaml');
    writeFileSync(
      globex,
      'org: { id: globex, name: Globex }\nsso: { saml_enabled: false, cert: "-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----" }\nmanagement: { sso: console }\n',
    );
    const file = join(freshDataDir(), 'acme.yaml');
    writeFileSync(file, acmeConfig(idp.cert));
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch); it fails the
    // hook if any command fails.
    const [, , , adminMade] = await runCliBatch(env, [
      ['apply', globex],
      ['apply', file],
      ['api-key', 'create', '--org', 'acme'],
      consoleUserCommand('acme', 'admin@acme.example', PASSWORD, ['ADMIN']),
      consoleUserCommand('acme', 'mod@acme.example', PASSWORD, ['MODERATOR']),
      consoleUserCommand('globex', 'admin@globex.example', PASSWORD, ['ADMIN']),
    ]);
    adminId = adminMade!.at(-1)!;
    warden = await startWarden(env);
    admin = await consoleLogin(warden.url, 'admin@acme.example', PASSWORD);
    moderator = await consoleLogin(warden.url, 'mod@acme.example', PASSWORD);
    globexAdmin = await consoleLogin(warden.url, 'admin@globex.example', PASSWORD);
  }, 90_000);

  afterAll(async () => {
    await warden?.stop();
  });

  const call = (session: Session | null, method: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${warden.url}/api/console/v1/sso`, {
      method,
      headers: {
        ...(session ? { cookie: session.cookie, 'x-csrf-token': session.csrfToken } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const ok = async (response: Response): Promise<{ text: string; body: Json }> => {
    const text = await response.text();
    expect(response.status, text).toBe(200);
    return { text, body: JSON.parse(text) as Json };
  };

  const ssoChanges = () => loggedEvents(dataDir, 'SsoSettingsChanged');

  /** A SAML sign-in with the test IdP; the roles of the session it opened. */
  async function samlSignIn(email: string, groups: string[], keys = idp): Promise<string[]> {
    const login = await startSamlLogin(warden.url, 'acme');
    const SAMLResponse = samlResponse(keys, { ...spUrls('acme'), inResponseTo: login.requestId, email, groups });
    const acs = await postSamlResponse(warden.url, 'acme', SAMLResponse, login.cookie);
    expect(acs.status, await acs.clone().text()).toBe(302);
    const cookie = acs.headers
      .getSetCookie()
      .find((c) => c.startsWith('warden_session='))!
      .split(';')[0]!;
    const me = await fetch(`${warden.url}/api/console/v1/me`, { headers: { cookie } });
    return ((await me.json()) as { user: { roles: string[] } }).user.roles.sort();
  }

  it('shows an ADMIN every sso setting, the IdP values, and the certificate only as fingerprint, subject and expiry', async () => {
    const { text, body } = await ok(await call(admin, 'GET'));
    const x509 = new X509Certificate(idp.cert);
    expect(body).toEqual({
      saml_enabled: true,
      sso_url: TEST_IDP_SSO_URL,
      passwordLogin: true,
      jit: { enabled: true, defaultRoles: ['MODERATOR'] },
      roleAttribute: null,
      roleMap: {},
      wantAssertionsSigned: true,
      certificate: { fingerprintSha256: x509.fingerprint256, subject: 'CN=test-idp.example', notAfter: x509.validToDate.toISOString() },
      serviceProvider: {
        entityId: `${PUBLIC_URL}/saml/metadata/acme`,
        acsUrl: `${PUBLIC_URL}/saml/acs/acme`,
        metadataUrl: `${PUBLIC_URL}/saml/metadata/acme`,
        loginUrl: `${PUBLIC_URL}/saml/login/acme`,
      },
      // The file set them and hands them to the console.
      managedBy: 'console',
      file: 'acme.yaml',
    });
    expect(text).not.toContain('BEGIN CERTIFICATE');
    expect(text).not.toContain(pemMarker(idp.cert));
  });

  it('changes roleMap and jit, recorded with the ADMIN as actor, and the next SAML sign-in uses them', async () => {
    // As applied: no roleAttribute, so a just-in-time user gets the default role whatever its groups.
    expect(await samlSignIn('before@acme.example', ['reviewers'])).toEqual(['MODERATOR']);

    const before = ssoChanges().length;
    const change = {
      saml_enabled: true,
      sso_url: TEST_IDP_SSO_URL,
      jit: { enabled: true, defaultRoles: ['EXTERNAL_MODERATOR'] },
      roleAttribute: 'groups',
      roleMap: { reviewers: ['ANALYST'], leads: ['MODERATOR_MANAGER', 'MODERATOR'] },
    };
    const { text, body } = await ok(await call(admin, 'PUT', change));
    expect(body).toMatchObject({ ...change, certificate: { fingerprintSha256: new X509Certificate(idp.cert).fingerprint256 } });
    expect(text).not.toContain(pemMarker(idp.cert));
    const recorded = ssoChanges();
    expect(recorded).toHaveLength(before + 1);
    expect(recorded.at(-1)!.metadata['actor']).toBe(`user:${adminId}`);

    expect(await samlSignIn('after@acme.example', ['reviewers'])).toEqual(['ANALYST']);
    expect(await samlSignIn('lead@acme.example', ['leads', 'lunch-club'])).toEqual(['MODERATOR', 'MODERATOR_MANAGER']);
    expect(await samlSignIn('newbie@acme.example', ['lunch-club'])).toEqual(['EXTERNAL_MODERATOR']);
    // The role attribute now applies to known users too, at their next sign-in.
    expect(await samlSignIn('before@acme.example', ['reviewers'])).toEqual(['ANALYST']);

    // The same settings again change nothing and record nothing.
    await ok(await call(admin, 'PUT', change));
    expect(ssoChanges()).toHaveLength(before + 1);
    const { body: read } = await ok(await call(admin, 'GET'));
    expect(read).toMatchObject(change);
  });

  it('replaces the certificate with a PEM: sign-in then verifies with the new key only', async () => {
    const { text, body } = await ok(
      await call(admin, 'PUT', {
        saml_enabled: true,
        sso_url: TEST_IDP_SSO_URL,
        cert: rolledOver.cert,
        jit: { enabled: true, defaultRoles: ['MODERATOR'] },
      }),
    );
    expect(body['certificate']).toMatchObject({ fingerprintSha256: new X509Certificate(rolledOver.cert).fingerprint256, subject: 'CN=next-idp.example' });
    expect(text).not.toContain(pemMarker(rolledOver.cert));
    expect(await samlSignIn('rolled@acme.example', [], rolledOver)).toEqual(['MODERATOR']);
  });

  it('refuses what the configuration file refuses, with a pointer, recording nothing', async () => {
    const before = eventCount(dataDir);
    const badCert = await call(admin, 'PUT', {
      saml_enabled: true,
      sso_url: TEST_IDP_SSO_URL,
      cert: 'not a certificate',
      jit: { enabled: true, defaultRoles: ['MODERATOR'] },
    });
    const error = await expectErrorBody(badCert, 400, '/errors/invalid-user-input', '/cert');
    expect(error['detail']).toContain('is not a PEM certificate');
    await expectErrorBody(await call(admin, 'PUT', { saml_enabled: false, passwordLogin: false }), 400, '/errors/invalid-user-input', '/passwordLogin');
    await expectErrorBody(await call(admin, 'PUT', { roleMap: { admins: ['ADMIN'] } }), 400, '/errors/invalid-user-input', '/roleAttribute');
    await expectErrorBody(
      await call(admin, 'PUT', { jit: { enabled: true, defaultRoles: ['KING'] } }),
      400,
      '/errors/invalid-user-input',
      '/jit/defaultRoles/0',
    );
    expect(eventCount(dataDir)).toBe(before);
    expect((await ok(await call(admin, 'GET'))).body['certificate']).toMatchObject({ subject: 'CN=next-idp.example' });
  });

  it('shows a stored certificate that does not parse as none, and checks one it is given even with SAML off', async () => {
    const { body } = await ok(await call(globexAdmin, 'GET'));
    expect(body).toMatchObject({ saml_enabled: false, certificate: null, serviceProvider: { entityId: `${PUBLIC_URL}/saml/metadata/globex` } });
    await expectErrorBody(await call(globexAdmin, 'PUT', { cert: 'not a certificate' }), 400, '/errors/invalid-user-input', '/cert');
  });

  it('refuses a MODERATOR (403) and a change without the CSRF token (403)', async () => {
    await expectErrorBody(await call(moderator, 'GET'), 403, '/errors/forbidden');
    await expectErrorBody(await call(moderator, 'PUT', { saml_enabled: false }), 403, '/errors/forbidden');
    const before = eventCount(dataDir);
    await expectErrorBody(await call(admin, 'PUT', { saml_enabled: false }, { 'x-csrf-token': '' }), 403, '/errors/forbidden');
    const noHeader = await fetch(`${warden.url}/api/console/v1/sso`, {
      method: 'PUT',
      headers: { cookie: admin.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ saml_enabled: false }),
    });
    await expectErrorBody(noHeader, 403, '/errors/forbidden');
    expect(eventCount(dataDir)).toBe(before);
    expect((await call(null, 'GET')).status).toBe(401);
  });

  it('never records either certificate in plaintext in the event log', () => {
    const log = rawLog(dataDir);
    expect(ssoChanges().length).toBeGreaterThanOrEqual(3);
    for (const cert of [idp.cert, rolledOver.cert]) expect(log).not.toContain(pemMarker(cert));
    expect(log).not.toContain('BEGIN CERTIFICATE');
  });
});
