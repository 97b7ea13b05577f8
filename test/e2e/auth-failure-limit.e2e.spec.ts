import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../support/error-body.js';
import { createKey, createOrgWithKey, freshDataDir, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/** Failed authentications count against the client address (issue 11, defect 7). */
describe('failed authentications per client address, against a running server', () => {
  const BURST = 5;
  // One token a minute: no refill lands while the test runs, so the budget is exactly the burst.
  const env = testEnv(freshDataDir(), { WARDEN_AUTH_FAILURE_BURST: String(BURST), WARDEN_AUTH_FAILURES_PER_MINUTE: '1' });
  let warden: RunningWarden;
  let validKey: string;

  beforeAll(async () => {
    warden = await startWarden(env);
    validKey = await createOrgWithKey(env, 'acme');
  });
  afterAll(async () => {
    await warden?.stop();
  });

  const organization = (key?: string) => fetch(warden.url + '/api/v1/organization', { headers: key === undefined ? {} : { 'x-api-key': key } });
  const inventedKey = () => 'wdn_' + randomBytes(24).toString('base64url');

  it('answers 429 once an address has spent its budget on invented keys, and still serves a valid key', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4 * BURST; i++) {
      const res = await organization(inventedKey());
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses.slice(0, BURST)).toEqual(Array(BURST).fill(401));
    expect(statuses.slice(BURST)).toEqual(Array(3 * BURST).fill(429));

    const limited = await organization(inventedKey());
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await expectErrorBody(limited, 429, '/errors/rate-limited');
    // A request without a key is a failed authentication too.
    await expectErrorBody(await organization(), 429, '/errors/rate-limited');

    // The same address with a valid key is never refused by the failure budget.
    for (let i = 0; i < 3; i++) {
      const ok = await organization(validKey);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ id: 'acme' });
    }
  });

  it('serves a key created a moment ago to an address whose budget is spent (an api-role process, no live read model)', async () => {
    const apiEnv = testEnv(freshDataDir(), { WARDEN_AUTH_FAILURE_BURST: String(BURST), WARDEN_AUTH_FAILURES_PER_MINUTE: '1', WARDEN_ROLE: 'api' });
    await createOrgWithKey(apiEnv, 'globex');
    const api = await startWarden(apiEnv);
    try {
      const get = (key: string) => fetch(api.url + '/api/v1/organization', { headers: { 'x-api-key': key } });
      const statuses: number[] = [];
      for (let i = 0; i < BURST + 1; i++) {
        const res = await get(inventedKey());
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      expect(statuses.at(-1)).toBe(429);
      // Written by another process: this one has not read it from the log yet.
      const fresh = await createKey(apiEnv, 'globex');
      const ok = await get(fresh);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ id: 'globex' });
      await expectErrorBody(await get(inventedKey()), 429, '/errors/rate-limited');
    } finally {
      await api.stop();
    }
  });

  it('authenticates before reading the body: a malformed body without a valid key is a 401 that charges the budget, not a 400 (issue 30)', async () => {
    const data = testEnv(freshDataDir(), { WARDEN_AUTH_FAILURE_BURST: '2', WARDEN_AUTH_FAILURES_PER_MINUTE: '1' });
    const key = await createOrgWithKey(data, 'initech');
    const server = await startWarden(data);
    try {
      // Malformed and deeply nested: parsing it would be a 400 (and, at 10 MB, a second of work).
      const hostile = '{"items":' + '['.repeat(100_000);
      const post = (headers: Record<string, string>) =>
        fetch(server.url + '/api/v1/items/async/', { method: 'POST', body: hostile, headers: { 'content-type': 'application/json', ...headers } });
      await expectErrorBody(await post({}), 401, '/errors/unauthorized');
      await expectErrorBody(await post({ 'x-api-key': inventedKey() }), 401, '/errors/unauthorized');
      // Both counted: the budget of two is spent.
      await expectErrorBody(await post({ 'x-api-key': inventedKey() }), 429, '/errors/rate-limited');
      // With a valid key the body is read, and its problem reported.
      await expectErrorBody(await post({ 'x-api-key': key }), 400, '/errors/invalid-user-input', '');
    } finally {
      await server.stop();
    }
  });
});

/** `GET /metrics` behind WARDEN_METRICS_TOKEN (docs/operations.md, "Health, metrics, logs"). */
describe('the metrics token, against a running server', () => {
  const TOKEN = 'scrape-' + randomBytes(18).toString('base64url');
  const env = testEnv(freshDataDir(), { WARDEN_METRICS_TOKEN: TOKEN, WARDEN_AUTH_FAILURE_BURST: '4', WARDEN_AUTH_FAILURES_PER_MINUTE: '1' });
  let warden: RunningWarden;

  beforeAll(async () => {
    warden = await startWarden(env);
  });
  afterAll(async () => {
    await warden?.stop();
  });

  const metrics = (authorization?: string) => fetch(warden.url + '/metrics', { headers: authorization === undefined ? {} : { authorization } });

  it('serves the metrics to the bearer token only, counts every refusal as a failed authentication, and leaves health open', async () => {
    const served = await metrics(`Bearer ${TOKEN}`);
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('warden_http_requests_total');
    // The scheme in any case (RFC 6750).
    expect((await metrics(`bearer ${TOKEN}`)).status).toBe(200);

    // Four refusals spend the budget of four: missing, another scheme, a wrong token, a prefix of it.
    for (const refused of [undefined, `Basic ${TOKEN}`, 'Bearer wrong-token-0123456789', `Bearer ${TOKEN.slice(0, -1)}`]) {
      const body = await expectErrorBody(await metrics(refused), 401, '/errors/unauthorized');
      expect(JSON.stringify(body)).not.toContain(TOKEN);
    }
    await expectErrorBody(await metrics('Bearer wrong-token-0123456789'), 429, '/errors/rate-limited');
    // The token still works from the same address: the budget counts failures only.
    expect((await metrics(`Bearer ${TOKEN}`)).status).toBe(200);
    // Probes carry no credentials.
    expect((await fetch(warden.url + '/health/live')).status).toBe(200);
    expect((await fetch(warden.url + '/health/ready')).status).toBe(200);
  });
});

/** A console route that needs a session, sent a body without one (issue 30, items 1 and 6). */
describe('console bodies before the session, against a running server', () => {
  const env = testEnv(freshDataDir(), { WARDEN_AUTH_FAILURE_BURST: '2', WARDEN_AUTH_FAILURES_PER_MINUTE: '1' });
  let warden: RunningWarden;

  beforeAll(async () => {
    warden = await startWarden(env);
  });
  afterAll(async () => {
    await warden?.stop();
  });

  it('answers 401 before reading the body, charges an invented session cookie to the budget, and reads no body of an unknown path', async () => {
    // 2 MB of nested JSON: parsed, it would be a 400 (and seconds of work at 10 MB).
    const hostile = '{"pad":[' + '{},'.repeat(700_000) + '{}],';
    const post = (path: string, headers: Record<string, string> = {}) =>
      fetch(warden.url + path, { method: 'POST', body: hostile, headers: { 'content-type': 'application/json', ...headers } });
    await expectErrorBody(await post('/api/console/v1/queues'), 401, '/errors/unauthorized');
    // Without a cookie nothing is charged; each invented one is.
    await expectErrorBody(await post('/api/console/v1/queues'), 401, '/errors/unauthorized');
    await expectErrorBody(await post('/api/console/v1/queues', { cookie: 'warden_session=invented-1' }), 401, '/errors/unauthorized');
    await expectErrorBody(await post('/api/console/v1/users/invitations', { cookie: 'warden_session=invented-2' }), 401, '/errors/unauthorized');
    await expectErrorBody(await post('/api/console/v1/queues', { cookie: 'warden_session=invented-3' }), 429, '/errors/rate-limited');
    // No route takes these: 404 and 405, the malformed body never parsed.
    await expectErrorBody(await post('/no/such/path'), 404, '/errors/not-found');
    await expectErrorBody(await post('/health/live'), 405, '/errors/method-not-allowed');
  });
});
