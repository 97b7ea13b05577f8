import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../support/error-body.js';
import { projectionPosition } from '../support/projection-progress.js';
import { waitFor } from '../support/wait-for.js';
import { createKey, createOrgWithKey, freshDataDir, lastLine, runCli, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

describe('foundation, end to end against a running server', () => {
  const env = testEnv(freshDataDir(), { WARDEN_BODY_LIMIT_BYTES: '4096' });
  let warden: RunningWarden;
  let key: string;

  beforeAll(async () => {
    warden = await startWarden(env);
    key = await createOrgWithKey(env, 'acme');
  });
  afterAll(async () => {
    await warden?.stop();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(warden.url + path, { headers });
  const post = (path: string, body: string, headers: Record<string, string>) => fetch(warden.url + path, { method: 'POST', body, headers });

  it('accepts a key the CLI created moments ago on the very next request, with or without trailing slash', async () => {
    const fresh = await createKey(env, 'acme', ['--name', 'fresh', '--team', 'trust']);
    const res = await get('/api/v1/organization', { 'X-API-KEY': fresh });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'acme', name: 'Org acme', apiKey: { team: 'trust' } });
    expect((await get('/api/v1/organization/', { 'x-api-key': fresh })).status).toBe(200);
    expect((await get('/api/v1/organization/', { 'X-Api-Key': fresh })).status).toBe(200);
  });

  it('creates an organization and its first key in one CLI call (org create --with-key), and no key without the flag', async () => {
    const created = await runCli(['org', 'create', '--id', 'umbrella', '--name', 'Umbrella', '--with-key'], env);
    expect(created.code).toBe(0);
    const lines = created.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Created organization umbrella (Umbrella)');
    expect(lines).toHaveLength(3);
    const res = await get('/api/v1/organization', { 'X-API-KEY': lastLine(created.stdout) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'umbrella', name: 'Umbrella' });
    expect((await runCli(['api-key', 'list', '--org', 'umbrella'], env)).stdout.trimEnd().split('\n')).toHaveLength(2);

    const plain = await runCli(['org', 'create', '--id', 'hooli', '--name', 'Hooli'], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout.trimEnd()).toBe('Created organization hooli (Hooli)');
    expect((await runCli(['api-key', 'list', '--org', 'hooli'], env)).stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('answers 401 with the section 7 body for a missing or unknown key', async () => {
    await expectErrorBody(await get('/api/v1/organization'), 401, '/errors/unauthorized');
    await expectErrorBody(await get('/api/v1/organization', { 'X-API-KEY': 'wdn_nope' }), 401, '/errors/unauthorized');
  });

  it('answers 400 with a pointer for malformed JSON', async () => {
    const parsed = await post('/api/v1/items/async/', '{bad', { 'content-type': 'application/json', 'x-api-key': key });
    await expectErrorBody(parsed, 400, '/errors/invalid-user-input', '');
  });

  it('leaves the body of a request no route takes unparsed: 404 or 405, never the 400 of its malformed JSON', async () => {
    const json = { 'content-type': 'application/json' };
    await expectErrorBody(await post('/api/v1/nowhere-but-json', '{bad', { ...json, 'x-api-key': key }), 404, '/errors/not-found');
    await expectErrorBody(await post('/nothing/here', '{bad', json), 404, '/errors/not-found');
    const wrong = await fetch(warden.url + '/health/live', { method: 'DELETE', body: '{bad', headers: json });
    expect(wrong.headers.get('allow')).toBe('GET');
    await expectErrorBody(wrong, 405, '/errors/method-not-allowed');
  });

  it('answers 404 for unknown routes and 405 with Allow for wrong methods', async () => {
    await expectErrorBody(await get('/api/v1/does-not-exist', { 'x-api-key': key }), 404, '/errors/not-found');
    await expectErrorBody(await get('/nothing/here'), 404, '/errors/not-found');
    const wrong = await fetch(warden.url + '/api/v1/organization', { method: 'DELETE', headers: { 'x-api-key': key } });
    expect(wrong.headers.get('allow')).toBe('GET');
    await expectErrorBody(wrong, 405, '/errors/method-not-allowed');
  });

  it('answers 413 for an oversized body', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(10_000) });
    await expectErrorBody(await post('/api/v1/organization', big, { 'content-type': 'application/json', 'x-api-key': key }), 413, '/errors/payload-too-large');
  });

  it('echoes a caller-supplied X-Request-Id and generates one otherwise', async () => {
    const res = await get('/api/v1/organization', { 'x-api-key': key, 'x-request-id': 'trace-123' });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
    expect((await get('/health/live')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('scopes every key to its organization', async () => {
    const other = await createOrgWithKey(env, 'globex');
    const a = (await (await get('/api/v1/organization', { 'x-api-key': key })).json()) as { id: string };
    const b = (await (await get('/api/v1/organization', { 'x-api-key': other })).json()) as { id: string };
    expect(a.id).toBe('acme');
    expect(b.id).toBe('globex');
  });

  it('answers 403 for a rotated-out key and a revoked key; the rotated-in key works', async () => {
    const old = await createKey(env, 'acme', ['--name', 'to-rotate']);
    expect((await get('/api/v1/organization', { 'x-api-key': old })).status).toBe(200);
    const list = await runCli(['api-key', 'list', '--org', 'acme'], env);
    const keyId = list.stdout
      .split('\n')
      .find((l) => l.includes('to-rotate'))!
      .split(/\s+/)[0]!;
    const rotated = await runCli(['api-key', 'rotate', '--org', 'acme', '--key', keyId], env);
    expect(rotated.code).toBe(0);
    const replacement = lastLine(rotated.stdout);
    expect(replacement).toMatch(/^wdn_/);
    expect((await get('/api/v1/organization', { 'x-api-key': replacement })).status).toBe(200);
    await waitFor(async () => (await get('/api/v1/organization', { 'x-api-key': old })).status === 403, 'the rotated-out key to be refused');
    await expectErrorBody(await get('/api/v1/organization', { 'x-api-key': old }), 403, '/errors/forbidden');

    const replacementId = (await runCli(['api-key', 'list', '--org', 'acme'], env)).stdout
      .split('\n')
      .find((l) => l.includes('active') && l.includes('to-rotate'))!
      .split(/\s+/)[0]!;
    expect((await runCli(['api-key', 'revoke', '--org', 'acme', '--key', replacementId], env)).code).toBe(0);
    await waitFor(async () => (await get('/api/v1/organization', { 'x-api-key': replacement })).status === 403, 'the revoked key to be refused');
  });

  it('notices appends made by another process, without a restart', async () => {
    const position = () => projectionPosition(warden.url, 'identity');
    const before = await waitFor(async () => {
      const applied = await position();
      return applied > 0 && applied;
    }, 'the identity projection to apply the first organization');
    const created = await runCli(['org', 'create', '--id', 'initech', '--name', 'Initech'], env);
    expect(created.code).toBe(0);
    await waitFor(async () => (await position()) > before, 'the identity projection to apply the organization the CLI created');
  });

  it('rebuilds the read models from the log with the CLI, the server still answering', async () => {
    const rebuilt = await runCli(['rebuild-read-models'], env);
    expect(rebuilt.code).toBe(0);
    const names = /^Rebuilt \d+ projection\(s\) \((.*)\) in \d+ ms$/m.exec(rebuilt.stdout)?.[1]?.split(', ') ?? [];
    expect(names).toEqual(expect.arrayContaining(['identity', 'catalog']));
    const fresh = await createKey(env, 'acme', ['--name', 'after-rebuild']);
    expect((await get('/api/v1/organization', { 'x-api-key': fresh })).status).toBe(200);
    expect((await get('/api/v1/organization', { 'x-api-key': key })).status).toBe(200);
    const list = await runCli(['api-key', 'list', '--org', 'acme'], env);
    expect(list.stdout).toContain('after-rebuild');
    expect(list.stdout).toContain('fresh');
  });

  it('serves metrics, the OpenAPI document and Swagger UI', async () => {
    await get('/api/v1/organization', { 'x-api-key': key });
    const metrics = await (await get('/metrics')).text();
    expect(metrics).toMatch(/warden_http_requests_total\{method="GET",route="\/api\/v1\/organization",status="200"\} \d+/);
    expect(metrics).toContain('warden_http_request_duration_seconds_bucket');
    expect(metrics).toContain('warden_eventstore_append_duration_seconds');
    expect(metrics).toContain('warden_projection_lag_positions');
    const doc = (await (await get('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/api/v1/organization');
    expect(await (await get('/docs')).text()).toMatch(/swagger/i);
    expect((await get('/health/ready')).status).toBe(200);
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After once a key exhausts its burst', async () => {
    const env = testEnv(freshDataDir(), { WARDEN_RATE_LIMIT_PER_SECOND: '1', WARDEN_RATE_LIMIT_BURST: '3' });
    const warden = await startWarden(env);
    try {
      const key = await createOrgWithKey(env, 'acme');
      const statuses: number[] = [];
      let limited: Response | undefined;
      for (let i = 0; i < 5; i++) {
        const res = await fetch(warden.url + '/api/v1/organization', { headers: { 'x-api-key': key } });
        statuses.push(res.status);
        if (res.status === 429) limited ??= res;
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses[4]).toBe(429);
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      await expectErrorBody(limited!, 429, '/errors/rate-limited');
      // Health is not rate limited.
      expect((await fetch(warden.url + '/health/live')).status).toBe(200);
    } finally {
      await warden.stop();
    }
  });
});
