import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import {
  consoleLogin,
  consoleUserCommand,
  freshDataDir,
  orgWithKeyCommand,
  runCliBatch,
  type RunningWarden,
  startWarden,
  testEnv,
} from '../support/warden-process.js';

interface AccessLine {
  level: number;
  component: string;
  requestId: string;
  method: string;
  route: string | null;
  status: number;
  durationMs: number;
  orgId: string | null;
  msg: string;
}

/**
 * Issue 30, item 20: a real server writes one access-log line per request (Fastify's own wrote two,
 * "incoming request" and "request completed"), with the request id, the route pattern, the status,
 * the duration and the organization, and nothing a request carries: no API key, cookie, password,
 * body, header value or query string.
 */
describe('the access log, one line per request', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir);
  const password = 'password-secret-0123';
  let warden: RunningWarden;
  let key: string;
  let session: { cookie: string; csrfToken: string };

  beforeAll(async () => {
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [orgMade] = await runCliBatch(env, [orgWithKeyCommand('acme'), consoleUserCommand('acme', 'admin@acme.example', password, ['ADMIN'])]);
    key = orgMade!.at(-1)!;
    warden = await startWarden(env);
    session = await consoleLogin(warden.url, 'admin@acme.example', password);
  }, 60_000);
  afterAll(async () => {
    await warden?.stop();
  });

  /** The access lines of this test's requests (the sign-in's may still be on its way in). */
  const accessLines = (): AccessLine[] =>
    warden
      .logs()
      .split('\n')
      .filter((line) => line.includes('"msg":"request"') && line.includes('"requestId":"access-'))
      .map((line) => JSON.parse(line) as AccessLine);

  it('names the console at the default public URL, http://localhost and the port it listens on', () => {
    const { port, url, console: consoleUrl } = warden.started;
    expect(url).toBe(`http://127.0.0.1:${String(port)}`);
    expect(consoleUrl).toBe(`http://localhost:${String(port)}/console/`);
  });

  it('writes exactly one line per request, with its id, route, status, duration and organization, and no secret', async () => {
    const secrets = [
      'person-42-secret',
      'body-text-secret',
      'idem-key-secret',
      'token-secret',
      'wdn_wrong_key_secret',
      'cookie-value-secret',
      password,
      key,
      session.cookie.split('=')[1]!,
      session.csrfToken,
    ];
    const requests: Array<{ path: string; init?: RequestInit; route: string | null; orgId: string | null }> = [
      { path: '/health/live', route: '/health/live', orgId: null },
      { path: '/api/v1/organization', init: { headers: { 'x-api-key': key } }, route: '/api/v1/organization', orgId: 'acme' },
      { path: '/api/v1/user_scores?id=person-42-secret&typeId=user', init: { headers: { 'x-api-key': key } }, route: '/api/v1/user_scores', orgId: 'acme' },
      { path: '/api/v1/user_scores?id=%ED%A0%80&typeId=user', init: { headers: { 'x-api-key': key } }, route: '/api/v1/user_scores', orgId: null },
      { path: '/api/v1/organization', init: { headers: { 'x-api-key': 'wdn_wrong_key_secret' } }, route: '/api/v1/organization', orgId: null },
      {
        path: '/api/v1/items/async',
        init: {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'idem-key-secret' },
          body: JSON.stringify({ items: [{ id: 'p1', typeId: 'post', data: { text: 'body-text-secret' } }] }),
        },
        route: '/api/v1/items/async',
        orgId: 'acme',
      },
      { path: '/api/console/v1/me', init: { headers: { cookie: session.cookie } }, route: '/api/console/v1/me', orgId: 'acme' },
      {
        path: '/api/console/v1/session',
        init: {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: 'warden_session=cookie-value-secret' },
          body: JSON.stringify({ email: 'admin@acme.example', password: `${password}x` }),
        },
        route: '/api/console/v1/session',
        orgId: null,
      },
      { path: '/saml/metadata/acme', route: '/saml/metadata/:orgId', orgId: 'acme' },
      { path: '/nowhere?token=token-secret', route: null, orgId: null },
      { path: '/api/v1/items/%zz/x', route: null, orgId: null },
      { path: '/docs', route: '/docs', orgId: null },
    ];
    const statuses: number[] = [];
    for (const [i, request] of requests.entries()) {
      const headers = { ...(request.init?.headers as Record<string, string> | undefined), 'x-request-id': `access-${i}` };
      const response = await fetch(warden.url + request.path, { ...request.init, headers });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    // The line is written once the response is out, so it may follow the client's read by a moment.
    await waitFor(() => accessLines().some((line) => line.requestId === `access-${requests.length - 1}`), "the last request's line");

    const lines = accessLines();
    expect(lines.map((line) => line.requestId)).toEqual(requests.map((_, i) => `access-${i}`));
    lines.forEach((line, i) => {
      expect(line).toEqual({
        level: 30,
        time: expect.any(String),
        service: 'warden',
        component: 'http',
        requestId: `access-${i}`,
        method: requests[i]!.init?.method ?? 'GET',
        route: requests[i]!.route,
        status: statuses[i],
        durationMs: expect.any(Number),
        orgId: requests[i]!.orgId,
        remoteAddress: '127.0.0.1',
        msg: 'request',
      });
    });
    // Nothing else names these requests: Fastify's own lines are gone.
    const log = warden.logs();
    for (let i = 0; i < requests.length; i++) expect(log.split(`"access-${i}"`).length - 1, `lines of access-${i}`).toBe(1);
    expect(log).not.toContain('incoming request');
    expect(log).not.toContain('request completed');
    for (const secret of secrets) expect(log, `${secret} in the server's log`).not.toContain(secret);
  });
});
