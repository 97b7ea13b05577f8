import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../support/error-body.js';
import { waitFor } from '../support/wait-for.js';
import {
  consoleLogin,
  consoleUserCommand,
  forEachConcurrently,
  freshDataDir,
  runCli,
  runCliBatch,
  runCliWithInput,
  type RunningWarden,
  startWarden,
  testEnv,
} from '../support/warden-process.js';

const PASSWORD = 'correct horse battery staple';
const SESSION = '/api/console/v1/session';
const ME = '/api/console/v1/me';

/**
 * A server and organization `acme` with the given users (email and role). The organization and
 * its users are made in one CLI process (runCliBatch) beside the server's start-up: neither needs
 * the other (docs/testing.md, "What the suite costs").
 */
async function setUp(
  users: ReadonlyArray<readonly [string, string]>,
  publicUrl?: string,
  extra: Record<string, string> = {},
): Promise<{ warden: RunningWarden; env: NodeJS.ProcessEnv }> {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir, { ...(publicUrl ? { WARDEN_PUBLIC_URL: publicUrl } : {}), ...extra });
  const started = startWarden(env);
  try {
    await runCliBatch(env, [
      ['org', 'create', '--id', 'acme', '--name', 'Acme'],
      ...users.map(([email, role]) => consoleUserCommand('acme', email, PASSWORD, [role])),
    ]);
  } finally {
    await started;
  }
  return { warden: await started, env };
}

/**
 * `count` failed sign-ins (their statuses in order), three at a time: each costs the server a
 * password hash, and two cores hash two at once. No more: the throttle counts an attempt by
 * compare-and-set on one document per key and refuses one it cannot write after a few contended
 * tries (login-throttle.ts), which is not what these tests are about.
 */
async function failures(count: number, send: (i: number) => Promise<number>): Promise<number[]> {
  const statuses: number[] = [];
  await forEachConcurrently([...Array(count).keys()], 3, async (i) => {
    statuses[i] = await send(i);
  });
  return statuses;
}

const login = (url: string, email: string, password: string, headers: Record<string, string> = {}) =>
  fetch(url + SESSION, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ email, password }) });

/** A sign-in sent from another loopback address (127.0.0.0/8), for the per-address throttle. */
function loginFrom(url: string, localAddress: string, email: string, password: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url + SESSION, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode!));
    });
    req.once('error', reject);
    req.end(JSON.stringify({ email, password }));
  });
}

const withoutRequestId = (body: string) => body.replace(/"requestId":"[^"]*"/, '').replace(/"instance":"[^"]*"/, '');

describe('console sessions (password sign-in)', () => {
  let warden: RunningWarden;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // Ann, and the users the tests below disable, reset, refuse and throttle.
    ({ warden, env } = await setUp([
      ['Ann@Example.com', 'MODERATOR'],
      ['bob@example.com', 'ADMIN'],
      ['cid@example.com', 'MODERATOR'],
      ['dee@example.com', 'MODERATOR'],
      ['carol@example.com', 'ANALYST'],
    ]));
  }, 90_000);
  afterAll(async () => {
    await warden?.stop();
  });

  it('GET session answers 200 either way: signed out, signed in with the CSRF token, and an invalid cookie cleared', async () => {
    const out = await fetch(warden.url + SESSION);
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ signedIn: false });

    const signed = await login(warden.url, 'ann@example.com', PASSWORD);
    const { csrfToken } = (await signed.json()) as { csrfToken: string };
    const cookie = signed.headers.get('set-cookie')!.split(';')[0]!;
    const current = await fetch(warden.url + SESSION, { headers: { cookie } });
    expect(current.status).toBe(200);
    expect(await current.json()).toMatchObject({ signedIn: true, csrfToken, user: { email: 'ann@example.com', orgId: 'acme', roles: ['MODERATOR'] } });

    const forged = await fetch(warden.url + SESSION, { headers: { cookie: `warden_session=${'A'.repeat(43)}` } });
    expect(forged.status).toBe(200);
    expect(await forged.json()).toEqual({ signedIn: false });
    expect(forged.headers.get('set-cookie')).toMatch(/^warden_session=;.*Max-Age=0/i);

    await fetch(warden.url + SESSION, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrfToken } });
    expect(await (await fetch(warden.url + SESSION, { headers: { cookie } })).json()).toEqual({ signedIn: false });
  });

  it('signs in (email compared case-insensitively), sets an HttpOnly SameSite=Lax cookie, without Secure on an http public URL', async () => {
    const response = await login(warden.url, 'ann@example.COM', PASSWORD);
    expect(response.status).toBe(200);
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^warden_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Max-Age=2592000;/);
    expect(cookie).not.toMatch(/Secure/i);
    const body = (await response.json()) as { user: Record<string, unknown>; csrfToken: string };
    expect(body.user).toMatchObject({ email: 'ann@example.com', orgId: 'acme', roles: ['MODERATOR'] });
    expect(body.user['permissions']).toContain('USE_CONSOLE');
    expect(body.user['permissions']).not.toContain('MANAGE_API_KEYS');
    expect(body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('me works with the cookie (and gives the CSRF token again), 401 without it', async () => {
    const { cookie, csrfToken } = await consoleLogin(warden.url, 'ann@example.com', PASSWORD);
    const me = await fetch(warden.url + ME, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ user: { email: 'ann@example.com', orgId: 'acme' }, csrfToken });
    expect((await fetch(warden.url + ME)).status).toBe(401);
    expect((await fetch(warden.url + ME, { headers: { cookie: 'warden_session=forged' } })).status).toBe(401);
  });

  it('refuses a mutating request without the CSRF header or from a foreign origin (403), then logs out and revokes the session', async () => {
    const { cookie, csrfToken } = await consoleLogin(warden.url, 'ann@example.com', PASSWORD);
    expect((await fetch(warden.url + SESSION, { method: 'DELETE', headers: { cookie } })).status).toBe(403);
    expect((await fetch(warden.url + SESSION, { method: 'DELETE', headers: { cookie, 'x-csrf-token': 'wrong' } })).status).toBe(403);
    const foreign = await fetch(warden.url + SESSION, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrfToken, origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect((await login(warden.url, 'ann@example.com', PASSWORD, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await fetch(warden.url + ME, { headers: { cookie } })).status).toBe(200);

    const logout = await fetch(warden.url + SESSION, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrfToken } });
    expect(logout.status).toBe(204);
    expect(logout.headers.get('set-cookie')).toMatch(/warden_session=;/);
    expect((await fetch(warden.url + ME, { headers: { cookie } })).status).toBe(401);
  });

  it('reads the body of a route that needs a session only once the session is valid: 401 before its malformed JSON is parsed', async () => {
    const route = warden.url + '/api/console/v1/users/invitations';
    const post = (headers: Record<string, string>) =>
      fetch(route, { method: 'POST', body: '{bad', headers: { 'content-type': 'application/json', ...headers } });
    await expectErrorBody(await post({}), 401, '/errors/unauthorized');
    await expectErrorBody(await post({ cookie: 'warden_session=forged' }), 401, '/errors/unauthorized');
    // Signed in, the body is read (and its JSON refused) before the guard looks at the roles.
    const { cookie, csrfToken } = await consoleLogin(warden.url, 'ann@example.com', PASSWORD);
    await expectErrorBody(await post({ cookie, 'x-csrf-token': csrfToken }), 400, '/errors/invalid-user-input', '');
  });

  it("stops a disabled user's live session on its next request, and refuses its sign-in with the usual 401", async () => {
    const { cookie } = await consoleLogin(warden.url, 'bob@example.com', PASSWORD);
    expect((await fetch(warden.url + ME, { headers: { cookie } })).status).toBe(200);
    const disabled = await runCli(['user', 'disable', '--org', 'acme', '--email', 'bob@example.com'], env);
    expect(disabled.code).toBe(0);
    expect((await fetch(warden.url + ME, { headers: { cookie } })).status).toBe(401);
    expect((await login(warden.url, 'bob@example.com', PASSWORD)).status).toBe(401);
  });

  it('ends the live sessions of a user whose password is set anew; the new password signs in', async () => {
    const { cookie } = await consoleLogin(warden.url, 'cid@example.com', PASSWORD);
    expect((await fetch(warden.url + ME, { headers: { cookie } })).status).toBe(200);
    const reset = await runCliWithInput(['user', 'set-password', '--org', 'acme', '--email', 'cid@example.com'], env, 'another long password\n');
    expect(reset.code, reset.stderr).toBe(0);
    expect((await fetch(warden.url + ME, { headers: { cookie } })).status).toBe(401);
    expect((await login(warden.url, 'cid@example.com', PASSWORD)).status).toBe(401);
    expect((await login(warden.url, 'cid@example.com', 'another long password')).status).toBe(200);
  });

  it('refuses a weak password at set-password, saying why, and keeps the old one (issue 30, item 8)', async () => {
    const refusals = [
      ['aaaaaaaaaaaa', /repeated or sequential/],
      ['\u0000'.repeat(12), /control characters/],
      ['password1234', /common or breached/],
    ] as const;
    // Three CLI processes that change nothing: side by side.
    const refused = await Promise.all(
      refusals.map(([password]) => runCliWithInput(['user', 'set-password', '--org', 'acme', '--email', 'dee@example.com'], env, `${password}\n`)),
    );
    for (const [i, [, why]] of refusals.entries()) {
      expect(refused[i]!.code, refused[i]!.stderr).toBe(1);
      expect(refused[i]!.stderr).toMatch(/^Error: The password was refused: /);
      expect(refused[i]!.stderr).toMatch(why);
    }
    expect((await login(warden.url, 'dee@example.com', PASSWORD)).status).toBe(200);
  }, 90_000);

  it('creates a user with its password in one command (user create --with-password); a refused password creates no user', async () => {
    const refused = await runCliWithInput(
      ['user', 'create', '--org', 'acme', '--email', 'eve@example.com', '--role', 'MODERATOR', '--with-password'],
      env,
      'password1234\n',
    );
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/^Error: The password was refused: .*common or breached/);
    const created = await runCliWithInput(
      ['user', 'create', '--org', 'acme', '--email', 'eve@example.com', '--role', 'MODERATOR', '--with-password'],
      env,
      `${PASSWORD}\n`,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toMatch(/^usr_/);
    // The refusal wrote nothing: the address was free for the second call, which signs in at once.
    expect((await login(warden.url, 'eve@example.com', PASSWORD)).status).toBe(200);
    const listed = await runCli(['user', 'list', '--org', 'acme'], env);
    expect(listed.stdout.split('\n').filter((line) => line.includes('eve@example.com'))).toEqual([expect.stringMatching(/\bactive\b(?! \(no password\))/)]);
  });

  it('answers an unknown email and a wrong password with the same body, and throttles an account after 10 failures', async () => {
    const [unknown, wrong] = await Promise.all([
      login(warden.url, 'nobody@example.com', 'wrong password here'),
      login(warden.url, 'carol@example.com', 'wrong password here'),
    ]);
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(withoutRequestId(await wrong.text())).toBe(withoutRequestId(await unknown.text()));

    // From other addresses, so that only the account's count reaches 10.
    expect(await failures(9, (i) => loginFrom(warden.url, `127.0.0.${10 + i}`, 'carol@example.com', 'wrong password here'))).toEqual(Array(9).fill(401));
    expect(await loginFrom(warden.url, '127.0.0.30', 'carol@example.com', PASSWORD)).toBe(429);
    const throttled = await login(warden.url, 'carol@example.com', PASSWORD);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await throttled.json()).toMatchObject({ errors: [{ title: 'Too many requests' }] });
    expect(await loginFrom(warden.url, '127.0.0.31', 'ann@example.com', PASSWORD)).toBe(200);
  });

  it('lists the users through the CLI', async () => {
    const list = await runCli(['user', 'list', '--org', 'acme'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('ann@example.com');
    expect(list.stdout).toMatch(/bob@example\.com\s+ADMIN\s+disabled/);
  });

  it('refuses a taken email, in any case', async () => {
    const taken = await runCli(['user', 'create', '--org', 'acme', '--email', 'ANN@example.com', '--role', 'ADMIN'], env);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/already exists/);
  });
});

describe('console sessions behind TLS and the per-address throttle', () => {
  let warden: RunningWarden;

  beforeAll(async () => {
    ({ warden } = await setUp([['dan@example.com', 'ADMIN']], 'https://console.example.com'));
  }, 90_000);
  afterAll(async () => {
    await warden?.stop();
  });

  it('names the cookie __Host-warden_session, Secure, Path=/ and no Domain, when the public URL is https; only that name is read', async () => {
    const response = await login(warden.url, 'dan@example.com', PASSWORD);
    expect(response.status).toBe(200);
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^__Host-warden_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toMatch(/; Secure/i);
    expect(setCookie).toMatch(/; Path=\/(;|$)/i);
    expect(setCookie).not.toMatch(/Domain=/i);
    const token = setCookie.split(';')[0]!.split('=')[1]!;
    expect((await fetch(warden.url + ME, { headers: { cookie: `__Host-warden_session=${token}` } })).status).toBe(200);
    // The unprefixed name, as a sibling subdomain could set it, names no session here.
    expect((await fetch(warden.url + ME, { headers: { cookie: `warden_session=${token}` } })).status).toBe(401);
    const state = await fetch(warden.url + SESSION, { headers: { cookie: `warden_session=${token}` } });
    expect(((await state.json()) as { signedIn: boolean }).signedIn).toBe(false);
    // Signing out clears the prefixed cookie, with the attributes the prefix needs.
    const { csrfToken } = (await (await fetch(warden.url + SESSION, { headers: { cookie: `__Host-warden_session=${token}` } })).json()) as {
      csrfToken: string;
    };
    const logout = await fetch(warden.url + SESSION, { method: 'DELETE', headers: { cookie: `__Host-warden_session=${token}`, 'x-csrf-token': csrfToken } });
    expect(logout.status).toBe(204);
    expect(logout.headers.get('set-cookie')).toMatch(/^__Host-warden_session=;.*Path=\/.*Secure/i);
  });

  it('names the prefixed cookie in the served OpenAPI document', async () => {
    const document = (await (await fetch(`${warden.url}/openapi.json`)).json()) as {
      components: { securitySchemes: { [name: string]: { name?: string } } };
    };
    expect(Object.values(document.components.securitySchemes).map((s) => s.name)).toContain('__Host-warden_session');
  });

  it('throttles an address after 10 failures whatever the accounts, and a success does not reset it', async () => {
    const address = '127.0.0.40';
    const wrongFrom = (i: number) => loginFrom(warden.url, address, `nobody${i}@example.com`, 'wrong password here');
    expect(await failures(5, wrongFrom)).toEqual(Array(5).fill(401));
    expect(await loginFrom(warden.url, address, 'dan@example.com', PASSWORD)).toBe(200);
    expect(await failures(5, (i) => wrongFrom(5 + i))).toEqual(Array(5).fill(401));
    expect(await loginFrom(warden.url, address, 'someone-else@example.com', 'wrong password here')).toBe(429);
    expect(await loginFrom(warden.url, address, 'dan@example.com', PASSWORD)).toBe(429);
    expect(await loginFrom(warden.url, '127.0.0.41', 'dan@example.com', PASSWORD)).toBe(200);
  });
});

describe('the per-address throttle behind a trusted proxy (WARDEN_TRUSTED_PROXIES)', () => {
  const PROXY = '127.0.0.50';
  let warden: RunningWarden;

  beforeAll(async () => {
    ({ warden } = await setUp([['eve@example.com', 'ADMIN']], undefined, { WARDEN_TRUSTED_PROXIES: `${PROXY}/32` }));
  }, 90_000);
  afterAll(async () => {
    await warden?.stop();
  });

  it("counts the client the proxy names, so one client's failures do not lock out the others behind it", async () => {
    const from = (client: string, email: string, password: string) => loginFrom(warden.url, PROXY, email, password, { 'x-forwarded-for': client });
    expect(await failures(10, (i) => from('203.0.113.5', `nobody${i}@example.com`, 'wrong password here'))).toEqual(Array(10).fill(401));
    expect(await from('203.0.113.5', 'eve@example.com', PASSWORD)).toBe(429);
    expect(await from('203.0.113.6', 'eve@example.com', PASSWORD)).toBe(200);
  });

  it('ignores the header from anyone else: a client cannot pick the address it is counted under', async () => {
    const direct = '127.0.0.51';
    expect(
      await failures(10, (i) => loginFrom(warden.url, direct, `someone${i}@example.com`, 'wrong password here', { 'x-forwarded-for': `198.51.100.${i}` })),
    ).toEqual(Array(10).fill(401));
    expect(await loginFrom(warden.url, direct, 'eve@example.com', PASSWORD, { 'x-forwarded-for': '198.51.100.99' })).toBe(429);
  });
});

describe('the idle timeout (WARDEN_CONSOLE_IDLE_TIMEOUT_SECONDS)', () => {
  let warden: RunningWarden;

  beforeAll(async () => {
    ({ warden } = await setUp([['ivy@example.com', 'MODERATOR']], undefined, { WARDEN_CONSOLE_IDLE_TIMEOUT_SECONDS: '1' }));
  }, 90_000);
  afterAll(async () => {
    await warden?.stop();
  });

  it('refuses a session left unused past the timeout, as an expired one, and a new sign-in works', async () => {
    const { cookie } = await consoleLogin(warden.url, 'ivy@example.com', PASSWORD);
    const me = () => fetch(warden.url + ME, { headers: { cookie } });
    expect((await me()).status).toBe(200);
    const lastUse = Date.now();
    // The timeout is the state waited for here: a second without a request (any request would be a use).
    await waitFor(() => Date.now() - lastUse > 1_500, { what: 'a second and a half without a request', intervalMs: 100 });
    await expectErrorBody(await me(), 401, '/errors/unauthorized');
    const state = (await (await fetch(warden.url + SESSION, { headers: { cookie } })).json()) as { signedIn: boolean };
    expect(state.signedIn).toBe(false);
    const again = await consoleLogin(warden.url, 'ivy@example.com', PASSWORD);
    expect((await fetch(warden.url + ME, { headers: { cookie: again.cookie } })).status).toBe(200);
  });
});
