import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authnRequestOf, type IdpKeys, makeIdpKeys, samlResponse, type SamlResponseOptions } from '../support/saml-idp.js';
import { createConsoleUser, freshDataDir, runCli, type RunningWarden, startConfigured, testEnv } from '../support/warden-process.js';

/** Issue 12, item 3: per-organization SAML sign-in against the real server, with a test IdP made here. */

const PUBLIC_URL = 'http://warden.test';
const indent = (text: string, spaces: number) => text.trimEnd().split('\n').map((l) => ' '.repeat(spaces) + l).join('\n');

const acmeConfig = (cert: string) => `org: { id: acme, name: Acme }
sso:
  saml_enabled: true
  sso_url: https://test-idp.example/sso
  cert: |
${indent(cert, 4)}
  jit: { enabled: true, defaultRoles: [MODERATOR] }
  roleAttribute: groups
  roleMap: { trust-safety-admins: [ADMIN], moderators: [MODERATOR], analysts: [ANALYST] }
`;
const globexConfig = (cert: string) => `org: { id: globex, name: Globex }
sso:
  saml_enabled: false
  sso_url: https://test-idp.example/sso
  cert: |
${indent(cert, 4)}
`;

const hooliConfig = (cert: string) => `org: { id: hooli, name: Hooli }
sso:
  saml_enabled: true
  sso_url: https://test-idp.example/sso
  passwordLogin: false
  cert: |
${indent(cert, 4)}
`;

/** The SsoLoginFailed reasons recorded for an organization, oldest first. */
function failures(dataDir: string, orgId: string): string[] {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  try {
    const rows = db
      .prepare("SELECT data FROM events WHERE type = 'SsoLoginFailed' ORDER BY position")
      .all() as Array<{ data: string }>;
    return rows.map((r) => JSON.parse(r.data) as { orgId: string; reason: string }).filter((d) => d.orgId === orgId).map((d) => d.reason);
  } finally {
    db.close();
  }
}

describe('SAML single sign-on (e2e)', () => {
  const dataDir = freshDataDir();
  let idp: IdpKeys;
  let impostor: IdpKeys;
  let warden: RunningWarden;
  const env = testEnv(dataDir, { WARDEN_PUBLIC_URL: PUBLIC_URL });

  beforeAll(async () => {
    [idp, impostor] = await Promise.all([makeIdpKeys(), makeIdpKeys('impostor.example')]);
    const globex = join(freshDataDir(), 'globex.yaml');
    writeFileSync(globex, globexConfig(idp.cert));
    const applied = await runCli(['apply', globex], env);
    expect(applied.code, applied.stderr).toBe(0);
    const hooli = join(freshDataDir(), 'hooli.yaml');
    writeFileSync(hooli, hooliConfig(idp.cert));
    const appliedHooli = await runCli(['apply', hooli], env);
    expect(appliedHooli.code, appliedHooli.stderr).toBe(0);
    const acme = join(freshDataDir(), 'acme.yaml');
    writeFileSync(acme, acmeConfig(idp.cert));
    ({ warden } = await startConfigured(env, acme, 'acme'));
  }, 60_000);

  afterAll(async () => {
    await warden?.stop();
  });

  /** Starts a sign-in as a browser would; returns the AuthnRequest id the IdP answers. */
  async function startLogin(orgId = 'acme'): Promise<string> {
    const res = await fetch(`${warden.url}/saml/login/${orgId}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    return authnRequestOf(res.headers.get('location')!).id;
  }

  const respond = async (overrides: Partial<SamlResponseOptions> = {}, keys = idp) =>
    samlResponse(keys, {
      audience: `${PUBLIC_URL}/saml/metadata/acme`,
      acsUrl: `${PUBLIC_URL}/saml/acs/acme`,
      inResponseTo: await startLogin(),
      email: 'ada@acme.example',
      groups: ['moderators'],
      ...overrides,
    });

  const post = (SAMLResponse: string, orgId = 'acme', headers: Record<string, string> = {}) =>
    fetch(`${warden.url}/saml/acs/${orgId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ SAMLResponse }).toString(),
    });

  /** Posts a response that must be refused: the status, the section 7 body, the failure recorded. */
  async function expectRefused(SAMLResponse: string, status: number, reason: string, orgId = 'acme') {
    const before = failures(dataDir, orgId).length;
    const res = await post(SAMLResponse, orgId);
    const body = (await res.json()) as { errors: Array<{ status: number; title: string; detail: string }> };
    expect(res.status).toBe(status);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(body.errors[0]).toMatchObject({ status, title: 'Single sign-on refused' });
    expect(failures(dataDir, orgId).slice(before)).toEqual([reason]);
    return body.errors[0]!;
  }

  it('serves SP metadata with the entity id and ACS URL an IdP needs', async () => {
    const res = await fetch(`${warden.url}/saml/metadata/acme`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/samlmetadata+xml');
    const xml = await res.text();
    expect(xml).toContain(`entityID="${PUBLIC_URL}/saml/metadata/acme"`);
    expect(xml).toContain(`Location="${PUBLIC_URL}/saml/acs/acme"`);
  });

  it('redirects the login to the IdP with an AuthnRequest naming this SP', async () => {
    const res = await fetch(`${warden.url}/saml/login/acme`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const request = authnRequestOf(res.headers.get('location')!);
    expect(request.destination).toBe('https://test-idp.example/sso');
    expect(request.xml).toContain(`AssertionConsumerServiceURL="${PUBLIC_URL}/saml/acs/acme"`);
  });

  it('answers an unknown organization with 404 and a malformed id with 400, recording nothing', async () => {
    expect((await fetch(`${warden.url}/saml/login/initech`, { redirect: 'manual' })).status).toBe(404);
    expect((await fetch(`${warden.url}/saml/metadata/initech`)).status).toBe(404);
    expect((await post(await respond(), 'initech')).status).toBe(404);
    expect((await fetch(`${warden.url}/saml/login/Not%20An%20Id`, { redirect: 'manual' })).status).toBe(400);
    expect(failures(dataDir, 'initech')).toEqual([]);
  });

  it('refuses a response signed by another key', async () => {
    await expectRefused(await respond({}, impostor), 401, 'bad-signature');
  });

  it('refuses a tampered response', async () => {
    const tampered = await respond({ tamper: (xml) => xml.replace('ada@acme.example', 'root@acme.example') });
    await expectRefused(tampered, 401, 'bad-signature');
  });

  it('refuses an unsigned response', async () => {
    await expectRefused(await respond({ sign: 'none' }), 401, 'unsigned');
  });

  it('refuses an expired assertion', async () => {
    await expectRefused(await respond({ validForSeconds: -600 }), 401, 'expired');
  });

  it("refuses an assertion for another organization's audience", async () => {
    await expectRefused(await respond({ audience: `${PUBLIC_URL}/saml/metadata/globex` }), 401, 'wrong-audience');
  });

  it('refuses a response to no request this service made', async () => {
    await expectRefused(await respond({ inResponseTo: '_made-up-request' }), 401, 'unknown-request');
    await expectRefused(await respond({ inResponseTo: null }), 401, 'unknown-request');
  });

  it('refuses an organization with saml_enabled: false, at login and at the ACS', async () => {
    expect((await fetch(`${warden.url}/saml/login/globex`, { redirect: 'manual' })).status).toBe(403);
    const response = samlResponse(idp, {
      audience: `${PUBLIC_URL}/saml/metadata/globex`,
      acsUrl: `${PUBLIC_URL}/saml/acs/globex`,
      inResponseTo: null,
      email: 'ada@globex.example',
    });
    await expectRefused(response, 403, 'saml-disabled', 'globex');
  });

  it('shows a browser a small HTML page instead of the JSON body', async () => {
    const res = await post(await respond({ sign: 'none' }), 'acme', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('The SAML response carries no signature');
  });

  /** The session cookie of a successful ACS answer, ready for a Cookie header. */
  async function signIn(SAMLResponse: string): Promise<string> {
    const res = await post(SAMLResponse);
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get('location')).toBe('/console/');
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^warden_session=[^;]+;/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).not.toMatch(/Secure/i); // WARDEN_PUBLIC_URL is http://
    return setCookie.split(';')[0]!;
  }

  const me = async (cookie: string) => {
    const res = await fetch(`${warden.url}/api/console/v1/me`, { headers: { cookie } });
    return { status: res.status, body: (await res.json()) as { user: { id: string; email: string; orgId: string; roles: string[] } } };
  };

  async function cliUser(args: string[]) {
    const run = await runCli(['user', ...args], env);
    expect(run.code, run.stderr).toBe(0);
  }

  /** The metadata `actor` of every event of a type, oldest first. */
  function actorsOf(type: string): string[] {
    const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT metadata FROM events WHERE type = ? ORDER BY position').all(type) as Array<{ metadata: string }>;
      return rows.map((r) => (JSON.parse(r.metadata) as { actor: string }).actor);
    } finally {
      db.close();
    }
  }

  it('signs a known user in: the session cookie is set, then /me works with it; its groups set its roles', async () => {
    await cliUser(['create', '--org', 'acme', '--email', 'Ann@acme.example', '--role', 'MODERATOR']);
    const cookie = await signIn(await respond({ email: 'ann@ACME.example', groups: ['analysts'] }));
    const { status, body } = await me(cookie);
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ email: 'ann@acme.example', orgId: 'acme', roles: ['ANALYST'] });
    expect(actorsOf('UserRolesChanged')).toContain('sso:saml');
    // The sign-in itself is audited as the user's, like a password sign-in.
    expect(actorsOf('ConsoleSessionOpened').at(-1)).toBe(`user:${body.user.id}`);
    expect((await fetch(`${warden.url}/api/console/v1/me`)).status).toBe(401);
  });

  it('refuses a replayed assertion: the same response a second time', async () => {
    await cliUser(['create', '--org', 'acme', '--email', 'rita@acme.example', '--role', 'MODERATOR']);
    const response = await respond({ email: 'rita@acme.example' });
    await signIn(response);
    await expectRefused(response, 401, 'replayed');
  });

  it('provisions an unknown user just in time with the mapped roles, and applies changed groups at the next sign-in', async () => {
    const first = await signIn(await respond({ email: 'newcomer@acme.example', groups: ['trust-safety-admins', 'moderators', 'lunch-club'] }));
    expect((await me(first)).body.user.roles.sort()).toEqual(['ADMIN', 'MODERATOR']);

    const second = await signIn(await respond({ email: 'newcomer@acme.example', groups: ['analysts'] }));
    expect((await me(second)).body.user.roles).toEqual(['ANALYST']);
    // The first session sees the change too: roles are the user's as of each request.
    expect((await me(first)).body.user.roles).toEqual(['ANALYST']);
  });

  it('gives a just-in-time user whose groups map to nothing the default roles', async () => {
    const cookie = await signIn(await respond({ email: 'plain@acme.example', groups: ['lunch-club'] }));
    expect((await me(cookie)).body.user.roles).toEqual(['MODERATOR']);
  });

  it("refuses another organization's user with that email, and a disabled user", async () => {
    await cliUser(['create', '--org', 'globex', '--email', 'bob@globex.example', '--role', 'ADMIN']);
    await expectRefused(await respond({ email: 'bob@globex.example' }), 403, 'user-of-another-organization');
    await cliUser(['create', '--org', 'acme', '--email', 'carl@acme.example', '--role', 'MODERATOR']);
    await cliUser(['disable', '--org', 'acme', '--email', 'carl@acme.example']);
    await expectRefused(await respond({ email: 'carl@acme.example' }), 403, 'user-disabled');
  });

  it('refuses a password sign-in (403, after the password is checked) in an organization with passwordLogin: false', async () => {
    await createConsoleUser(dataDir, 'hooli', 'gavin@hooli.example', 'a long enough password', ['MODERATOR'], env);
    await createConsoleUser(dataDir, 'acme', 'pat@acme.example', 'a long enough password', ['MODERATOR'], env);
    const login = (email: string, password: string) =>
      fetch(`${warden.url}/api/console/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
    const refused = await login('gavin@hooli.example', 'a long enough password');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect(((await refused.json()) as { errors: Array<{ detail: string }> }).errors[0]!.detail).toContain('/saml/login/hooli');
    // A wrong password there is the usual 401: the SSO-only answer needs the password.
    expect((await login('gavin@hooli.example', 'not the password at all')).status).toBe(401);
    expect((await login('pat@acme.example', 'a long enough password')).status).toBe(200);
  });

  it('takes a form only at the ACS: the customer API still refuses one with 415', async () => {
    const res = await fetch(`${warden.url}/api/v1/items/async/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': 'whatever' },
      body: 'items=1',
    });
    expect(res.status).toBe(415);
  });
});
