import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../support/error-body.js';
import { actorsOf, loggedEvents } from '../support/config-files.js';
import { authnRequestOf, elementCount, type IdpKeys, makeIdpKeys, samlResponse, type SamlResponseOptions } from '../support/saml-idp.js';
import { postSamlResponse, PUBLIC_URL, samlForm, samlOrgConfig, spUrls, startSamlLogin, TEST_IDP_SSO_URL } from '../support/saml-sso.js';
import { consoleUserCommand, freshDataDir, runCli, runCliBatch, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/** Issue 12, item 3: per-organization SAML sign-in against the real server, with a test IdP made here. */

const acmeConfig = (cert: string) =>
  samlOrgConfig({ id: 'acme', name: 'Acme' }, cert, {
    sso: [
      'jit: { enabled: true, defaultRoles: [MODERATOR] }',
      'roleAttribute: groups',
      'roleMap: { trust-safety-admins: [ADMIN], moderators: [MODERATOR], analysts: [ANALYST] }',
    ],
  });
const globexConfig = (cert: string) => samlOrgConfig({ id: 'globex', name: 'Globex' }, cert, { samlEnabled: false });
const hooliConfig = (cert: string) => samlOrgConfig({ id: 'hooli', name: 'Hooli' }, cert, { sso: ['passwordLogin: false'] });

/** A response as the IdP hands it to the browser, and the binding cookie that browser holds (null: none). */
interface Posted {
  readonly SAMLResponse: string;
  readonly cookie: string | null;
  readonly relayState?: string;
}

/** Lower than the defaults, so that responses at the limits stay quick to make and check. */
const SAML_BODY_LIMIT = 48 * 1024;
const SAML_MAX_ELEMENTS = 200;

/** The SsoLoginFailed reasons recorded for an organization, oldest first. */
const failures = (dataDir: string, orgId: string): string[] =>
  loggedEvents(dataDir, 'SsoLoginFailed')
    .filter((e) => e.data['orgId'] === orgId)
    .map((e) => String(e.data['reason']));

describe('SAML single sign-on (e2e)', () => {
  const dataDir = freshDataDir();
  let idp: IdpKeys;
  let impostor: IdpKeys;
  let warden: RunningWarden;
  const env = testEnv(dataDir, {
    WARDEN_PUBLIC_URL: PUBLIC_URL,
    WARDEN_SAML_BODY_LIMIT_BYTES: String(SAML_BODY_LIMIT),
    WARDEN_SAML_MAX_ELEMENTS: String(SAML_MAX_ELEMENTS),
    // The tests post through a "proxy" (this machine) naming a client of their own per post, so
    // that their many refusals stay within the ACS's throttle (10 per network); the throttle's own
    // test names one client for all its posts.
    WARDEN_TRUSTED_PROXIES: '127.0.0.1/32',
  });

  beforeAll(async () => {
    [idp, impostor] = await Promise.all([makeIdpKeys(), makeIdpKeys('impostor.example')]);
    const globex = join(freshDataDir(), 'globex.yaml');
    writeFileSync(globex, globexConfig(idp.cert));
    const hooli = join(freshDataDir(), 'hooli.yaml');
    writeFileSync(hooli, hooliConfig(idp.cert));
    const acme = join(freshDataDir(), 'acme.yaml');
    writeFileSync(acme, acmeConfig(idp.cert));
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    await runCliBatch(env, [
      ['apply', globex],
      ['apply', hooli],
      ['apply', acme],
      ['api-key', 'create', '--org', 'acme'],
    ]);
    warden = await startWarden(env);
  }, 60_000);

  afterAll(async () => {
    await warden?.stop();
  });

  /** A response to a sign-in started as a browser starts it (so with that browser's cookie), unless overridden. */
  const respond = async (overrides: Partial<SamlResponseOptions> = {}, keys = idp): Promise<Posted> => {
    const login = await startSamlLogin(warden.url, 'acme');
    const SAMLResponse = samlResponse(keys, {
      ...spUrls('acme'),
      inResponseTo: login.requestId,
      email: 'ada@acme.example',
      groups: ['moderators'],
      ...overrides,
    });
    return { SAMLResponse, cookie: login.cookie };
  };

  let clients = 0;
  /** The next client's address, one of its own network (TEST-NET-2, then TEST-NET-3). */
  const nextClient = () => {
    clients++;
    return clients < 255 ? `198.51.100.${clients}` : `203.0.113.${clients - 254}`;
  };
  const post = ({ SAMLResponse, cookie, relayState }: Posted, orgId = 'acme', headers: Record<string, string> = {}) =>
    postSamlResponse(warden.url, orgId, SAMLResponse, cookie, { 'x-forwarded-for': nextClient(), ...headers }, relayState);

  /** The ACS answer's Set-Cookie headers: the session's (if any), and the binding cookie's clearing. */
  const cookiesOf = (res: Response) => {
    const all = res.headers.getSetCookie();
    return { session: all.find((c) => c.startsWith('warden_session=')), binding: all.find((c) => c.startsWith('warden_saml_request=')) };
  };
  const expectBindingCleared = (res: Response, orgId = 'acme') => {
    const { binding } = cookiesOf(res);
    expect(binding).toMatch(/^warden_saml_request=;/);
    expect(binding).toMatch(/Max-Age=0/i);
    expect(binding).toContain(`Path=/saml/acs/${orgId}`);
  };

  /** Posts a response that must be refused: the status, the error body (docs/api.md, "Errors"), the failure recorded, no session. */
  async function expectRefused(posted: Posted, status: number, reason: string, orgId = 'acme') {
    const before = failures(dataDir, orgId).length;
    const res = await post(posted, orgId);
    const body = (await res.json()) as { errors: Array<{ status: number; title: string; detail: string }> };
    expect(res.status).toBe(status);
    expect(cookiesOf(res).session).toBeUndefined();
    expectBindingCleared(res, orgId);
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
    expect(request.destination).toBe(TEST_IDP_SSO_URL);
    expect(request.xml).toContain(`AssertionConsumerServiceURL="${PUBLIC_URL}/saml/acs/acme"`);
  });

  describe('a browser starts a sign-in on a page naming the IdP, and goes on only by its form', () => {
    const navigate = (orgId: string, site: string | null, query = '', accept = 'text/html,*/*;q=0.8') =>
      fetch(`${warden.url}/saml/login/${orgId}${query}`, {
        redirect: 'manual',
        headers: { accept, ...(site === null ? {} : { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' }) },
      });
    const submit = (orgId: string, headers: Record<string, string>, form = '') =>
      fetch(`${warden.url}/saml/login/${orgId}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
        body: form,
      });
    const idpHost = new URL(TEST_IDP_SSO_URL).host;
    const bindingCookies = (res: Response) => res.headers.getSetCookie().filter((c) => c.startsWith('warden_saml_request='));
    const expectConfirmationPage = async (res: Response) => {
      expect(res.status).toBe(200);
      expect(res.headers.get('location')).toBeNull();
      expect(bindingCookies(res)).toEqual([]);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('cache-control')).toBe('no-store');
      const page = await res.text();
      expect(page).toContain(`<code>${idpHost}</code>`);
      expect(page).toContain('Acme');
      expect(page).toContain('<form method="post" action="/saml/login/acme">');
      return page;
    };

    it('answers every browser navigation with the page, whatever it comes from (a link in reviewed content is same-origin), and starts nothing', async () => {
      for (const site of ['same-origin', 'cross-site', 'same-site', 'none']) {
        const page = await expectConfirmationPage(await navigate('acme', site));
        expect(page).not.toContain('name="reauth"');
      }
      // A query that once meant "go on" does nothing now.
      await expectConfirmationPage(await navigate('acme', 'same-origin', '?continue=1'));
      expect(await expectConfirmationPage(await navigate('acme', 'none', '?reauth=1'))).toContain('<input type="hidden" name="reauth" value="1">');
    });

    it("goes on to the IdP from the page's own form (303, the browser bound), and for a client that sends no Fetch Metadata", async () => {
      const posted = await submit('acme', { 'sec-fetch-site': 'same-origin', origin: warden.url });
      expect(posted.status).toBe(303);
      const request = authnRequestOf(posted.headers.get('location')!);
      expect(request.destination).toBe(TEST_IDP_SSO_URL);
      expect(request.xml).not.toContain('ForceAuthn="true"');
      expect(bindingCookies(posted)).toHaveLength(1);
      expect((await submit('acme', {})).status).toBe(303);
      expect((await navigate('acme', null)).status).toBe(302);
      // A client that posts no body at all (nor a content type): the form without `reauth`.
      const bare = await fetch(`${warden.url}/saml/login/acme`, { method: 'POST', redirect: 'manual' });
      expect(bare.status, await bare.clone().text()).toBe(303);
      expect(authnRequestOf(bare.headers.get('location')!).xml).not.toContain('ForceAuthn="true"');
    });

    it('asks the IdP to authenticate the user again (ForceAuthn) when the sign-in says reauth=1', async () => {
      const posted = await submit('acme', { 'sec-fetch-site': 'same-origin' }, 'reauth=1');
      expect(authnRequestOf(posted.headers.get('location')!).xml).toContain('ForceAuthn="true"');
      expect(authnRequestOf((await navigate('acme', null, '?reauth=1')).headers.get('location')!).xml).toContain('ForceAuthn="true"');
    });

    it("answers another site's form with the page again, from a browser with or without Fetch Metadata", async () => {
      await expectConfirmationPage(await submit('acme', { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }));
      await expectConfirmationPage(await submit('acme', { origin: 'https://evil.example' }));
    });

    it('refuses, without a page naming any host, an organization without SAML and an unknown one', async () => {
      const disabled = await navigate('globex', 'cross-site');
      expect(disabled.status).toBe(403);
      expect(await disabled.text()).not.toContain('test-idp.example');
      expect((await navigate('initech', 'cross-site')).status).toBe(404);
      expect((await navigate('initech', 'cross-site', '', 'application/json')).status).toBe(404);
      expect((await submit('globex', { 'sec-fetch-site': 'same-origin' })).status).toBe(403);
    });

    it('takes at most a small form there', async () => {
      expect((await submit('acme', { 'sec-fetch-site': 'same-origin' }, `reauth=${'1'.repeat(2048)}`)).status).toBe(413);
    });
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

  it('refuses an organization with saml_enabled: false, at login and at the ACS, recording nothing', async () => {
    expect((await fetch(`${warden.url}/saml/login/globex`, { redirect: 'manual' })).status).toBe(403);
    const response = samlResponse(idp, { ...spUrls('globex'), inResponseTo: null, email: 'ada@globex.example' });
    for (let i = 0; i < 12; i++) {
      const res = await post({ SAMLResponse: response, cookie: null }, 'globex', { 'x-forwarded-for': '192.0.2.1' });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { errors: Array<{ detail: string }> }).errors[0]!.detail).toContain('not enabled');
    }
    expect(failures(dataDir, 'globex')).toEqual([]);
  });

  it("throttles refusals per organization and client network: 10 recorded, then 429 with Retry-After, recording nothing; others' posts go on", async () => {
    const junk = { SAMLResponse: Buffer.from('<x></x>').toString('base64'), cookie: null };
    const from = (client: string, orgId = 'acme') => post(junk, orgId, { 'x-forwarded-for': client });
    const before = failures(dataDir, 'acme').length;
    for (let i = 0; i < 10; i++) expect((await from('192.0.2.10')).status).toBe(401);
    for (let i = 0; i < 3; i++) {
      const limited = await from('192.0.2.10');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expectBindingCleared(limited);
      const error = await expectErrorBody(limited, 429, '/errors/rate-limited');
      expect(error['detail']).toContain('Too many refused SSO sign-ins');
    }
    expect(failures(dataDir, 'acme').slice(before)).toEqual(Array(10).fill('unsigned'));
    // A browser following the IdP's form gets the page, with the same status.
    const page = await post(junk, 'acme', { 'x-forwarded-for': '192.0.2.10', accept: 'text/html' });
    expect(page.status).toBe(429);
    expect(page.headers.get('content-type')).toContain('text/html');
    // Another network, and a valid sign-in from it, are not held back.
    expect((await from('192.0.2.11')).status).toBe(401);
    await signIn(await respond({ email: 'after-the-flood@acme.example' }));
    expect(failures(dataDir, 'acme').slice(before)).toHaveLength(11);
  });

  it('counts refusals of responses the IdP signed, for who they name, against the IdP account first; one posted again, or from another browser, against the network', async () => {
    await runCliBatch(env, [
      ['user', 'create', '--org', 'acme', '--email', 'dora@acme.example', '--role', 'MODERATOR'],
      ['user', 'disable', '--org', 'acme', '--email', 'dora@acme.example'],
      ['user', 'create', '--org', 'acme', '--email', 'erin@acme.example', '--role', 'MODERATOR'],
      ['user', 'disable', '--org', 'acme', '--email', 'erin@acme.example'],
    ]);
    const office = { 'x-forwarded-for': '192.0.2.20' };
    const before = failures(dataDir, 'acme').length;
    for (let i = 0; i < 11; i++) expect((await post(await respond({ email: 'dora@acme.example' }), 'acme', office)).status).toBe(403);
    expect(failures(dataDir, 'acme').slice(before)).toEqual(Array(11).fill('user-disabled'));
    // Dora's own ten were spent, and the eleventh counted against the network: still within it, a
    // colleague on the same network signs in.
    expect((await post(await respond({ email: 'office-colleague@acme.example' }), 'acme', office)).status).toBe(302);
    // A script looping through Dora's IdP session meets the network's throttle after nine more.
    for (let i = 0; i < 9; i++) expect((await post(await respond({ email: 'dora@acme.example' }), 'acme', office)).status).toBe(403);
    expect((await post(await respond({ email: 'dora@acme.example' }), 'acme', office)).status).toBe(429);

    // One signed response posted again and again: replayed once spent, or without its browser's
    // cookie (not spent, so that its browser may still finish) — both counted.
    const replayer = { 'x-forwarded-for': '192.0.2.21' };
    const refused = await respond({ email: 'erin@acme.example' });
    expect((await post(refused, 'acme', replayer)).status).toBe(403);
    for (let i = 0; i < 10; i++) expect((await post(refused, 'acme', replayer)).status).toBe(401);
    expect((await post(refused, 'acme', replayer)).status).toBe(429);
    const unbound = { ...(await respond()), cookie: null };
    const elsewhere = { 'x-forwarded-for': '192.0.2.22' };
    for (let i = 0; i < 10; i++) expect((await post(unbound, 'acme', elsewhere)).status).toBe(401);
    expect((await post(unbound, 'acme', elsewhere)).status).toBe(429);
  });

  it('shows a browser a small HTML page instead of the JSON body', async () => {
    const res = await post(await respond({ sign: 'none' }), 'acme', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('The SAML response carries no signature');
  });

  /** The session cookie of a successful ACS answer, ready for a Cookie header. */
  async function signIn(posted: Posted): Promise<string> {
    const res = await post(posted);
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get('location')).toBe('/console/');
    expectBindingCleared(res);
    const setCookie = cookiesOf(res).session ?? '';
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

  it('signs a known user in: the session cookie is set, then /me works with it; its groups set its roles', async () => {
    await cliUser(['create', '--org', 'acme', '--email', 'Ann@acme.example', '--role', 'MODERATOR']);
    const cookie = await signIn(await respond({ email: 'ann@ACME.example', groups: ['analysts'] }));
    const { status, body } = await me(cookie);
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ email: 'ann@acme.example', orgId: 'acme', roles: ['ANALYST'] });
    expect(actorsOf(dataDir, 'UserRolesChanged')).toContain('sso:saml');
    // The sign-in itself is audited as the user's, like a password sign-in.
    expect(actorsOf(dataDir, 'ConsoleSessionOpened').at(-1)).toBe(`user:${body.user.id}`);
    expect((await fetch(`${warden.url}/api/console/v1/me`)).status).toBe(401);
  });

  it('counts a session as signed in when the IdP authenticated the user (AuthnInstant): an IdP session reused past ForceAuthn is not a recent sign-in', async () => {
    await cliUser(['create', '--org', 'acme', '--email', 'root@acme.example', '--role', 'ADMIN']);
    const createKey = async (cookie: string) => {
      const { csrfToken } = (await (await fetch(`${warden.url}/api/console/v1/me`, { headers: { cookie } })).json()) as { csrfToken: string };
      return fetch(`${warden.url}/api/console/v1/api-keys`, {
        method: 'POST',
        headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'made after an SSO sign-in' }),
      });
    };
    // The IdP authenticated the user two hours ago and answered this sign-in from its own session:
    // the session opens, but a change that needs a recent sign-in (15 minutes) is refused.
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000).toISOString();
    const reused = await signIn(await respond({ email: 'root@acme.example', groups: ['trust-safety-admins'], authnInstant: twoHoursAgo }));
    expect((await me(reused)).status).toBe(200);
    await expectErrorBody(await createKey(reused), 403, '/errors/recent-sign-in-required');
    // Authenticated by the IdP a minute ago (the test IdP's default): the same change is made.
    const fresh = await signIn(await respond({ email: 'root@acme.example', groups: ['trust-safety-admins'] }));
    expect((await createKey(fresh)).status).toBe(201);
  });

  it('binds the sign-in to the browser that started it: the login sets a cookie for the ACS only, which takes it and clears it', async () => {
    const login = await startSamlLogin(warden.url, 'acme');
    const value = login.cookie.slice('warden_saml_request='.length);
    // A digest of the request id: nothing in the cookie another browser could use, and not the id itself.
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(login.requestId).not.toContain(value);
    expect(login.setCookie).toMatch(/Max-Age=900/i);
    expect(login.setCookie).toContain('Path=/saml/acs/acme');
    expect(login.setCookie).toMatch(/HttpOnly/i);
    // WARDEN_PUBLIC_URL is http://: no Secure, so SameSite=Lax (with TLS: SameSite=None; Secure).
    expect(login.setCookie).toMatch(/SameSite=Lax/i);
    expect(login.setCookie).not.toMatch(/Secure/i);
    const SAMLResponse = samlResponse(idp, { ...spUrls('acme'), inResponseTo: login.requestId, email: 'bound@acme.example' });
    const cookie = await signIn({ SAMLResponse, cookie: login.cookie });
    expect((await me(cookie)).body.user.email).toBe('bound@acme.example');
  });

  it("refuses someone's valid response in a browser that did not start that sign-in (login CSRF): unbound-request", async () => {
    // The attacker starts a sign-in and gets a valid response for their own account...
    const attacker = await startSamlLogin(warden.url, 'acme');
    const SAMLResponse = samlResponse(idp, { ...spUrls('acme'), inResponseTo: attacker.requestId, email: 'mallory@acme.example' });
    // ...and makes the victim's browser post it: one with no sign-in under way, then one with its own.
    const refused = await expectRefused({ SAMLResponse, cookie: null }, 401, 'unbound-request');
    expect(refused.detail).toContain('not started in this browser');
    const victim = await startSamlLogin(warden.url, 'acme');
    await expectRefused({ SAMLResponse, cookie: victim.cookie }, 401, 'unbound-request');
    // A made-up cookie value is no better.
    await expectRefused({ SAMLResponse, cookie: 'warden_saml_request=' + 'A'.repeat(43) }, 401, 'unbound-request');
    // A refused response is not spent: in the browser that started it, it signs its owner in.
    const cookie = await signIn({ SAMLResponse, cookie: attacker.cookie });
    expect((await me(cookie)).body.user.email).toBe('mallory@acme.example');
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

  it('refuses to create just in time an account under an address no account may have (no-email), recorded once the assertion is spent', async () => {
    // Quotes: the shape of an address, which finds an existing account, but not one identity takes.
    const response = await respond({ email: '"quoted"@acme.example', groups: ['moderators'] });
    const refusal = await expectRefused(response, 401, 'no-email');
    expect(refusal.detail).toContain('no email address a console account may have');
    // Spent before the refusal: posted again, it is a replay.
    await expectRefused(response, 401, 'replayed');
  });

  it('gives a just-in-time user whose groups map to nothing the default roles', async () => {
    const cookie = await signIn(await respond({ email: 'plain@acme.example', groups: ['lunch-club'] }));
    expect((await me(cookie)).body.user.roles).toEqual(['MODERATOR']);
  });

  it("refuses another organization's user with that email, and a disabled user", async () => {
    // The users in one CLI process (runCliBatch).
    await runCliBatch(env, [
      ['user', 'create', '--org', 'globex', '--email', 'bob@globex.example', '--role', 'ADMIN'],
      ['user', 'create', '--org', 'acme', '--email', 'carl@acme.example', '--role', 'MODERATOR'],
      ['user', 'disable', '--org', 'acme', '--email', 'carl@acme.example'],
    ]);
    await expectRefused(await respond({ email: 'bob@globex.example' }), 403, 'user-of-another-organization');
    await expectRefused(await respond({ email: 'carl@acme.example' }), 403, 'user-disabled');
  });

  it('refuses a password sign-in (403, after the password is checked) in an organization with passwordLogin: false', async () => {
    await runCliBatch(env, [
      consoleUserCommand('hooli', 'gavin@hooli.example', 'a long enough password', ['MODERATOR']),
      consoleUserCommand('acme', 'pat@acme.example', 'a long enough password', ['MODERATOR']),
    ]);
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

  describe('what a post may cost (issue 30, item 2)', () => {
    /** The post padded with RelayState to exactly `bytes` bytes of form. */
    const padded = (posted: Posted, bytes: number): Posted => ({
      ...posted,
      relayState: 'x'.repeat(bytes - samlForm(posted.SAMLResponse, '').length),
    });

    it('reads the form under WARDEN_SAML_BODY_LIMIT_BYTES: a post of exactly the limit signs in; one byte more is refused unread (413, response-too-large)', async () => {
      const atLimit = padded(await respond({ email: 'at-the-limit@acme.example' }), SAML_BODY_LIMIT);
      expect(samlForm(atLimit.SAMLResponse, atLimit.relayState).length).toBe(SAML_BODY_LIMIT);
      await signIn(atLimit);
      const refused = await expectRefused(padded(await respond(), SAML_BODY_LIMIT + 1), 413, 'response-too-large');
      expect(refused.detail).toContain('WARDEN_SAML_BODY_LIMIT_BYTES');
      // A browser following the IdP's form gets the page, as for every refusal.
      const res = await post(padded(await respond(), SAML_BODY_LIMIT + 1), 'acme', { accept: 'text/html' });
      expect(res.status).toBe(413);
      expect(await res.text()).toContain('larger than this service accepts');
    });

    it('counts the elements before parsing: a response of WARDEN_SAML_MAX_ELEMENTS elements signs in; one more is refused (413, too-many-elements)', async () => {
      const base = elementCount((await respond({ groups: [] })).SAMLResponse);
      const withElements = async (elements: number, email: string) => {
        const posted = await respond({ email, groups: Array.from({ length: elements - base }, (_, i) => `group-${i}`) });
        expect(elementCount(posted.SAMLResponse)).toBe(elements);
        return posted;
      };
      await signIn(await withElements(SAML_MAX_ELEMENTS, 'many-groups@acme.example'));
      const refused = await expectRefused(await withElements(SAML_MAX_ELEMENTS + 1, 'too-many-groups@acme.example'), 413, 'too-many-elements');
      expect(refused.detail).toContain('WARDEN_SAML_MAX_ELEMENTS');
    });
  });

  describe('what a response must say (issue 30, item 5)', () => {
    it('refuses a response whose status is not Success, even around a validly signed assertion (idp-error)', async () => {
      const failed = await respond({ email: 'status@acme.example', status: 'urn:oasis:names:tc:SAML:2.0:status:Responder' });
      await expectRefused(failed, 401, 'idp-error');
    });

    it("refuses a response addressed to another ACS, by its Destination or its assertion's Recipient; one naming neither signs in", async () => {
      const elsewhere = spUrls('globex').acsUrl;
      await expectRefused(await respond({ email: 'destination@acme.example', destination: elsewhere }), 401, 'wrong-destination');
      await expectRefused(await respond({ email: 'recipient@acme.example', recipient: elsewhere }), 401, 'wrong-recipient');
      await signIn(await respond({ email: 'addressed-to-nobody@acme.example', destination: null, recipient: null }));
    });

    it('refuses an RSA-SHA1 signature (and SHA-1 digest) unless WARDEN_SAML_ALLOW_SHA1 is true (sha1-signature)', async () => {
      await expectRefused(await respond({ email: 'sha1@acme.example', hash: 'sha1' }), 401, 'sha1-signature');
    });
  });

  it('takes a form only at the ACS: the console API still refuses one with 415', async () => {
    // A route without a credential: the customer API answers a request without a valid key 401
    // before reading its body (issue 30, item 6), so it would not show which parser ran.
    const res = await fetch(`${warden.url}/api/console/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC_URL },
      body: 'email=a%40acme.example&password=x',
    });
    expect(res.status).toBe(415);
  });
});
