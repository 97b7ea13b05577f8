import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/warden-config.js';
import type { DomainError } from '#warden/kernel';
import { authFailureLimitOf } from '../auth/auth-failure-limit.js';
import fastifyCookie from '@fastify/cookie';
import { installRateLimit, openRateLimitStores, requestCost } from './rate-limit.js';
import type { RateLimitStore } from './rate-limit-store.port.js';
import { MemoryRateLimitStore } from './token-bucket.js';

/** A pino logger whose lines the test can read. */
function capturingLogger(): { logger: pino.Logger; lines: () => Array<{ level: number; msg: string }> } {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines: () => out.map((l) => JSON.parse(l) as { level: number; msg: string }) };
}

describe('rate limit on the HTTP layer', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const serve = async (store: RateLimitStore, logger = capturingLogger().logger, cookies = false, sessionCookie?: string): Promise<FastifyInstance> => {
    app = Fastify();
    if (cookies) await app.register(fastifyCookie);
    installRateLimit(app, { requests: store, authFailures: undefined }, logger, sessionCookie);
    app.get('/api/v1/thing', async () => ({ ok: true }));
    app.get('/health/live', async () => ({ ok: true }));
    await app.ready();
    return app;
  };

  it('answers 429 with the section 7 body and Retry-After once a key has used its burst, per key', async () => {
    const http = await serve(new MemoryRateLimitStore({ ratePerSecond: 0.001, burst: 2 }));
    const get = (key: string) => http.inject({ method: 'GET', url: '/api/v1/thing', headers: { 'x-api-key': key } });
    expect((await get('a')).statusCode).toBe(200);
    expect((await get('a')).statusCode).toBe(200);
    const limited = await get('a');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const body = limited.json<{ errors: Array<{ status: number; type: string[]; title: string; detail: string }> }>();
    expect(body.errors).toEqual([
      expect.objectContaining({ status: 429, type: ['/errors/rate-limited'], title: 'Too many requests', detail: expect.stringContaining('retry after') }),
    ]);
    expect((await get('b')).statusCode).toBe(200);
    expect((await http.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
  });

  it('weighs a request by its body: a token per 64 KiB, at most the burst, a chunked body as one of the body limit', async () => {
    const costs = { burst: 200, bodyLimitBytes: 10 * 1024 * 1024 };
    const cost = (headers: Record<string, string>) => requestCost({ method: 'POST', headers }, costs);
    expect(cost({})).toBe(1);
    expect(cost({ 'content-length': '0' })).toBe(1);
    expect(cost({ 'content-length': String(64 * 1024) })).toBe(1);
    expect(cost({ 'content-length': String(64 * 1024 + 1) })).toBe(2);
    expect(cost({ 'content-length': String(10 * 1024 * 1024) })).toBe(160);
    expect(cost({ 'content-length': String(100 * 1024 * 1024) })).toBe(200);
    expect(cost({ 'transfer-encoding': 'chunked' })).toBe(160);
    expect(cost({ 'content-length': 'lots' })).toBe(1);
    expect(requestCost({ method: 'GET', headers: { 'content-length': String(10 * 1024 * 1024) } }, costs)).toBe(1);
    expect(requestCost({ method: 'POST', headers: { 'transfer-encoding': 'chunked' }, routeOptions: { bodyLimit: 64 * 1024 } }, costs)).toBe(1);

    app = Fastify({ bodyLimit: 1024 * 1024 });
    installRateLimit(
      app,
      { requests: new MemoryRateLimitStore({ ratePerSecond: 0.001, burst: 4 }), authFailures: undefined },
      capturingLogger().logger,
      undefined,
      {
        burst: 4,
        bodyLimitBytes: 1024 * 1024,
      },
    );
    app.post('/api/v1/thing', async () => ({ ok: true }));
    await app.ready();
    const post = (key: string, bytes: number) =>
      app!.inject({
        method: 'POST',
        url: '/api/v1/thing',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: JSON.stringify({ pad: 'x'.repeat(bytes) }),
      });
    // Three tokens for a body of about 150 KiB; the fourth token pays one small request, and the key is spent.
    expect((await post('big', 150 * 1024)).statusCode).toBe(200);
    expect((await post('big', 10)).statusCode).toBe(200);
    expect((await post('big', 10)).statusCode).toBe(429);
    // Another key's small requests are not held back.
    for (let i = 0; i < 4; i++) expect((await post('small', 10)).statusCode).toBe(200);
  });

  it('limits requests without a key per client address', async () => {
    const http = await serve(new MemoryRateLimitStore({ ratePerSecond: 0.001, burst: 1 }));
    const from = (remoteAddress: string) => http.inject({ method: 'GET', url: '/api/v1/thing', remoteAddress });
    expect((await from('203.0.113.1')).statusCode).toBe(200);
    expect((await from('203.0.113.1')).statusCode).toBe(429);
    expect((await from('203.0.113.2')).statusCode).toBe(200);
  });

  it('counts an X-API-KEY only on customer routes: elsewhere a fresh key per request is still the address (or session) budget', async () => {
    app = Fastify();
    await app.register(fastifyCookie);
    installRateLimit(app, { requests: new MemoryRateLimitStore({ ratePerSecond: 0.001, burst: 2 }), authFailures: undefined }, capturingLogger().logger);
    app.post('/api/console/v1/session', async () => ({ ok: true }));
    app.get('/api/v1/thing', async () => ({ ok: true }));
    await app.ready();
    const signIn = (key: string, remoteAddress: string, cookies?: Record<string, string>) =>
      app!.inject({ method: 'POST', url: '/api/console/v1/session', remoteAddress, headers: { 'x-api-key': key }, cookies });
    expect((await signIn('random-1', '203.0.113.20')).statusCode).toBe(200);
    expect((await signIn('random-2', '203.0.113.20')).statusCode).toBe(200);
    expect((await signIn('random-3', '203.0.113.20')).statusCode).toBe(429);
    // A session on the console is still its own budget, whatever key comes with it.
    expect((await signIn('random-4', '203.0.113.20', { warden_session: 'alice' })).statusCode).toBe(200);
    // An unknown path under /api/v1/ is no customer route (nothing checks its key there): the address's budget.
    const unrouted = await app.inject({ method: 'GET', url: '/api/v1/nothing', remoteAddress: '203.0.113.21', headers: { 'x-api-key': 'random-5' } });
    expect(unrouted.statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/api/v1/nothing', remoteAddress: '203.0.113.21', headers: { 'x-api-key': 'random-6' } })).statusCode).toBe(
      404,
    );
    expect((await app.inject({ method: 'GET', url: '/api/v1/thing', remoteAddress: '203.0.113.21' })).statusCode).toBe(429);
    // On a customer route, each key keeps its own budget, whoever sends it.
    for (const key of ['k1', 'k1', 'k2', 'k2']) {
      expect((await app.inject({ method: 'GET', url: '/api/v1/thing', remoteAddress: '203.0.113.21', headers: { 'x-api-key': key } })).statusCode).toBe(200);
    }
  });

  it('limits console requests per session cookie, so people behind one address do not share a budget', async () => {
    const http = await serve(new MemoryRateLimitStore({ ratePerSecond: 0.001, burst: 1 }), capturingLogger().logger, true);
    const as = (session: string) => http.inject({ method: 'GET', url: '/api/v1/thing', remoteAddress: '203.0.113.9', cookies: { warden_session: session } });
    expect((await as('alice')).statusCode).toBe(200);
    expect((await as('alice')).statusCode).toBe(429);
    expect((await as('bob')).statusCode).toBe(200);
  });

  it("reads only the deployment's session cookie: another name is the address's budget, not a fresh bucket per request", async () => {
    const http = await serve(new MemoryRateLimitStore({ ratePerSecond: 0.001, burst: 1 }), capturingLogger().logger, true, '__Host-warden_session');
    const as = (cookies: Record<string, string>) => http.inject({ method: 'GET', url: '/api/v1/thing', remoteAddress: '203.0.113.10', cookies });
    expect((await as({ warden_session: 'invented-1' })).statusCode).toBe(200);
    expect((await as({ warden_session: 'invented-2' })).statusCode).toBe(429);
    expect((await as({ '__Host-warden_session': 'alice' })).statusCode).toBe(200);
  });

  it('lets requests through while the store fails, warning once per outage', async () => {
    let down = true;
    const flaky: RateLimitStore = {
      sharedAcrossInstances: true,
      take: async () => {
        if (down) throw new Error('connection refused');
        return 0;
      },
    };
    const { logger, lines } = capturingLogger();
    const http = await serve(flaky, logger);
    for (let i = 0; i < 3; i++) expect((await http.inject({ method: 'GET', url: '/api/v1/thing' })).statusCode).toBe(200);
    expect(lines().map((l) => l.msg)).toEqual(['rate-limit store failed; requests go unlimited until it answers']);
    down = false;
    await http.inject({ method: 'GET', url: '/api/v1/thing' });
    expect(
      lines()
        .map((l) => l.msg)
        .at(-1),
    ).toBe('rate-limit store answers again');
  });
});

describe('failed authentications per client address', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  /** A budget of two failures per address; the route stands in for the API-key guard: every request fails to authenticate. */
  async function failingAuthApp(): Promise<FastifyInstance> {
    const server = Fastify();
    installRateLimit(server, { requests: undefined, authFailures: new MemoryRateLimitStore({ ratePerSecond: 0.001, burst: 2 }) }, capturingLogger().logger);
    server.get('/api/v1/thing', async (request, reply) => {
      try {
        await authFailureLimitOf(request)!.charge(request.ip);
        return await reply.status(401).send();
      } catch (error) {
        return reply
          .status((error as DomainError).status)
          .header('retry-after', (error as DomainError).headers['Retry-After'])
          .send();
      }
    });
    await server.ready();
    return server;
  }

  it('hands each request a budget that refuses an address with 429 once it is spent, per address', async () => {
    app = await failingAuthApp();
    const from = (remoteAddress: string) => app!.inject({ method: 'GET', url: '/api/v1/thing', remoteAddress });
    expect([(await from('203.0.113.1')).statusCode, (await from('203.0.113.1')).statusCode]).toEqual([401, 401]);
    const refused = await from('203.0.113.1');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await from('203.0.113.2')).statusCode).toBe(401);
  });

  it('counts the addresses of one IPv6 /64 as one client, and an IPv4-mapped address as its IPv4 address', async () => {
    app = await failingAuthApp();
    const from = async (remoteAddress: string) => (await app!.inject({ method: 'GET', url: '/api/v1/thing', remoteAddress })).statusCode;
    expect(await from('2001:db8:1:2::1')).toBe(401);
    expect(await from('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe(401);
    expect(await from('2001:0db8:0001:0002:ffff::9')).toBe(429);
    expect(await from('2001:db8:1:3::1')).toBe(401);
    expect(await from('198.51.100.7')).toBe(401);
    expect(await from('::ffff:198.51.100.7')).toBe(401);
    expect(await from('198.51.100.7')).toBe(429);
  });
});

describe('choosing the rate-limit stores', () => {
  it('opens none for a limit that is off, the memory store by default, and needs a connection for mongodb', async () => {
    const off = await openRateLimitStores(loadConfig({ WARDEN_RATE_LIMIT_PER_SECOND: '0', WARDEN_AUTH_FAILURES_PER_MINUTE: '0' }), undefined);
    expect(off).toEqual({ requests: undefined, authFailures: undefined });
    const memory = await openRateLimitStores(loadConfig({}), undefined);
    expect(memory.requests).toBeInstanceOf(MemoryRateLimitStore);
    expect(memory.authFailures).toBeInstanceOf(MemoryRateLimitStore);
    expect(memory.requests?.sharedAcrossInstances).toBe(false);
    const mongoConfig = loadConfig({ WARDEN_MONGO_URL: 'mongodb://db:27017/warden' });
    await expect(openRateLimitStores(mongoConfig, undefined)).rejects.toThrow(/no MongoDB connection/);
  });
});
