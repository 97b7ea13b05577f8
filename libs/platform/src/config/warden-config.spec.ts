import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from './warden-config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({}, '/srv/warden');
    expect(c).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      dataDir: '/srv/warden/data',
      role: 'all',
      eventStoreUrl: undefined,
      mongoUrl: undefined,
      mongoConnectTimeoutMs: 8_000,
      outboundAllowlist: [],
      logLevel: 'info',
      bodyLimitBytes: 10 * 1024 * 1024,
      rateLimitPerSecond: 100,
      rateLimitBurst: 200,
      sqliteSync: 'full',
      rateLimitStore: 'memory',
      maxItemsPerRequest: 1000,
      mediaTimeoutMs: 10_000,
      secretKey: undefined,
      callbackRetryScheduleMs: [10_000, 60_000, 300_000, 1_800_000, 7_200_000],
      reactorLease: { ttlMs: 10_000, renewEveryMs: 3_000 },
      requestTimeoutMs: 60_000,
      maxConnectionsPerClient: 256,
    });
  });

  it('trims values and reads an empty one as unset', () => {
    const c = loadConfig({ PORT: ' 8080 ', WARDEN_ROLE: '', WARDEN_OUTBOUND_ALLOWLIST: ' 10.0.0.0/8 , ::1/128 ,' }, '/srv');
    expect(c).toMatchObject({ port: 8080, role: 'all', outboundAllowlist: ['10.0.0.0/8', '::1/128'] });
  });

  it('resolves a relative data directory against the working directory and keeps an absolute one', () => {
    expect(loadConfig({ WARDEN_DATA_DIR: 'state' }, '/srv/warden').dataDir).toBe('/srv/warden/state');
    expect(loadConfig({ WARDEN_DATA_DIR: '/var/lib/warden' }, '/srv/warden').dataDir).toBe('/var/lib/warden');
  });

  it('reads the callback retry schedule in ms, s, m and h', () => {
    expect(loadConfig({ WARDEN_CALLBACK_RETRY_SCHEDULE: '500ms, 1.5s,2m,1h' }).callbackRetryScheduleMs).toEqual([500, 1500, 120_000, 3_600_000]);
  });

  it('keeps rate-limit counters in MongoDB when it is configured, unless told to keep them in memory', () => {
    const mongo = { WARDEN_MONGO_URL: 'mongodb://db:27017/warden' };
    expect(loadConfig({}).rateLimitStore).toBe('memory');
    expect(loadConfig(mongo).rateLimitStore).toBe('mongodb');
    expect(loadConfig({ ...mongo, WARDEN_RATE_LIMIT_STORE: 'memory' }).rateLimitStore).toBe('memory');
  });

  it("reads the KurrentDB server's MaxAppendSize, its default 1 MiB, at least 64 KiB", () => {
    expect(loadConfig({}).kurrentDbMaxAppendBytes).toBe(1024 * 1024);
    expect(loadConfig({ WARDEN_KURRENTDB_MAX_APPEND_BYTES: '4194304' }).kurrentDbMaxAppendBytes).toBe(4 * 1024 * 1024);
    expect(() => loadConfig({ WARDEN_KURRENTDB_MAX_APPEND_BYTES: '1000' })).toThrow(ConfigError);
  });

  it('reads the reactor lease timing', () => {
    const c = loadConfig({ WARDEN_REACTOR_LEASE_TTL: '4s', WARDEN_REACTOR_LEASE_RENEW: '500ms' });
    expect(c.reactorLease).toEqual({ ttlMs: 4000, renewEveryMs: 500 });
  });

  it('keeps Idempotency-Key records 24 h with a 60 s lease by default, and reads both', () => {
    expect(loadConfig({}).idempotency).toEqual({ retentionMs: 86_400_000, leaseMs: 60_000 });
    expect(loadConfig({ WARDEN_IDEMPOTENCY_RETENTION: '2h', WARDEN_IDEMPOTENCY_LEASE: '5s' }).idempotency).toEqual({ retentionMs: 7_200_000, leaseMs: 5000 });
    expect(() => loadConfig({ WARDEN_IDEMPOTENCY_LEASE: '200ms' })).toThrow('WARDEN_IDEMPOTENCY_LEASE must be at least 1s');
    expect(() => loadConfig({ WARDEN_IDEMPOTENCY_RETENTION: '2d' })).toThrow('WARDEN_IDEMPOTENCY_RETENTION has an invalid duration "2d"');
  });

  it.each([
    [{ PORT: '70000' }, 'PORT must be between 0 and 65535'],
    [{ PORT: '3e3' }, 'PORT must be a whole number'],
    [{ WARDEN_ROLE: 'leader' }, 'WARDEN_ROLE must be one of all, api, worker'],
    [{ WARDEN_EVENTSTORE_URL: 'http://kurrent:2113' }, 'WARDEN_EVENTSTORE_URL must use one of the schemes'],
    [{ WARDEN_MONGO_URL: 'not a url' }, 'WARDEN_MONGO_URL is not a valid URL'],
    [{ WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8, 10.0.0.0/33' }, 'WARDEN_OUTBOUND_ALLOWLIST has an invalid CIDR range "10.0.0.0/33"'],
    [{ WARDEN_OUTBOUND_ALLOWLIST: 'localhost' }, 'WARDEN_OUTBOUND_ALLOWLIST has an invalid CIDR range "localhost"'],
    [{ WARDEN_LOG_LEVEL: 'loud' }, 'WARDEN_LOG_LEVEL must be one of'],
    [{ WARDEN_SQLITE_SYNC: 'off' }, 'WARDEN_SQLITE_SYNC must be one of full, normal'],
    [{ WARDEN_OUTBOUND_ALLOWLIST: '127.1/8' }, 'WARDEN_OUTBOUND_ALLOWLIST has an invalid CIDR range "127.1/8"'],
    [{ WARDEN_BODY_LIMIT_BYTES: '10' }, 'WARDEN_BODY_LIMIT_BYTES must be between 1024 and 1073741824, got 10'],
    [{ WARDEN_RATE_LIMIT_BURST: '0' }, 'WARDEN_RATE_LIMIT_BURST must be between 1 and 10000000, got 0'],
    [{ WARDEN_RATE_LIMIT_STORE: 'redis' }, 'WARDEN_RATE_LIMIT_STORE must be memory or mongodb, got "redis"'],
    [{ WARDEN_RATE_LIMIT_STORE: 'mongodb' }, 'WARDEN_RATE_LIMIT_STORE is mongodb, which needs WARDEN_MONGO_URL'],
    [{ WARDEN_CALLBACK_RETRY_SCHEDULE: '10s,1d' }, 'WARDEN_CALLBACK_RETRY_SCHEDULE has an invalid duration "1d"'],
    [{ WARDEN_CALLBACK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s' }, 'WARDEN_CALLBACK_RETRY_SCHEDULE has at most 5 entries, got 6'],
    [{ WARDEN_REACTOR_LEASE_TTL: '500ms' }, 'WARDEN_REACTOR_LEASE_TTL must be at least 1s'],
    [{ WARDEN_REACTOR_LEASE_TTL: '10s', WARDEN_REACTOR_LEASE_RENEW: '5s' }, 'WARDEN_REACTOR_LEASE_RENEW must be at most a third of WARDEN_REACTOR_LEASE_TTL'],
    [{ WARDEN_REACTOR_LEASE_RENEW: 'often' }, 'WARDEN_REACTOR_LEASE_RENEW has an invalid duration'],
    [{ WARDEN_NATS_URL: 'http://broker:4222' }, 'WARDEN_NATS_URL must be a comma-separated list of nats:// or tls:// URLs'],
    [{ WARDEN_NATS_SUBJECT_PREFIX: 'warden.*' }, 'WARDEN_NATS_SUBJECT_PREFIX must be NATS subject tokens'],
    [{ WARDEN_NATS_STREAM: 'WARDEN.ITEMS' }, 'WARDEN_NATS_STREAM must be 1 to 64 letters'],
    [{ WARDEN_NATS_BATCH: '0' }, 'WARDEN_NATS_BATCH must be between 1 and 1000, got 0'],
  ])('refuses %o with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('lists every bad variable in one line and one error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', WARDEN_ROLE: 'leader', WARDEN_LOG_LEVEL: 'info', WARDEN_SQLITE_SYNC: 'off' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { message, problems } = error as ConfigError;
    expect(problems.map((p) => p.variable)).toEqual(['PORT', 'WARDEN_ROLE', 'WARDEN_SQLITE_SYNC']);
    expect(message).toBe(
      'Invalid configuration: PORT must be a whole number, got "eighty"; ' +
        'WARDEN_ROLE must be one of all, api, worker, got "leader"; ' +
        'WARDEN_SQLITE_SYNC must be one of full, normal, got "off"',
    );
    expect(message).not.toContain('\n');
  });

  it('never repeats the value of a variable that may hold a secret', () => {
    const secrets = {
      WARDEN_SECRET_KEY: 'c2VjcmV0LWtleS10aGF0LWlzLXRvby1zaG9ydA==',
      WARDEN_MONGO_URL: 'http://admin:hunter2@db.internal:27017/warden',
      WARDEN_EVENTSTORE_URL: 'https://admin:hunter3@kurrent.internal:2113',
    };
    let message = '';
    try {
      loadConfig(secrets);
    } catch (e) {
      message = (e as ConfigError).message;
    }
    expect(message).toContain('WARDEN_SECRET_KEY must be a comma-separated list of base64-encoded 32-byte keys');
    expect(message).toContain('WARDEN_MONGO_URL must use one of the schemes');
    expect(message).toContain('WARDEN_EVENTSTORE_URL must use one of the schemes');
    for (const fragment of ['c2VjcmV0', 'hunter2', 'hunter3', 'admin', 'internal']) expect(message).not.toContain(fragment);
  });

  it('takes a metrics token of 16 to 512 printable characters, unset by default, and never repeats a bad one', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ WARDEN_METRICS_TOKEN: ' scrape-token-0123456789 ' }).metricsToken).toBe('scrape-token-0123456789');
    for (const bad of ['short-token', 'has a space inside it', 'x'.repeat(513), 'non-ascii-tökén-0123456789']) {
      let message = '';
      try {
        loadConfig({ WARDEN_METRICS_TOKEN: bad });
      } catch (e) {
        message = (e as ConfigError).message;
      }
      expect(message).toContain('WARDEN_METRICS_TOKEN must be 16 to 512 printable ASCII characters without spaces');
      expect(message).not.toContain(bad);
    }
  });

  it('accepts a secret key list of base64-encoded 32-byte keys', () => {
    const key = (n: number) => Buffer.alloc(32, n).toString('base64');
    expect(loadConfig({ WARDEN_SECRET_KEY: `${key(1)}, ${key(2)}` }).secretKey).toBe(`${key(1)}, ${key(2)}`);
  });

  it('takes the secret key file as a path, resolved against the working directory, and refuses it beside WARDEN_SECRET_KEY', () => {
    expect(loadConfig({}).secretKeyFile).toBeUndefined();
    expect(loadConfig({ WARDEN_SECRET_KEY_FILE: 'keys/warden.key' }, '/srv/warden').secretKeyFile).toBe('/srv/warden/keys/warden.key');
    expect(loadConfig({ WARDEN_SECRET_KEY_FILE: '/run/secrets/warden-key' }, '/srv/warden').secretKeyFile).toBe('/run/secrets/warden-key');
    const key = Buffer.alloc(32, 1).toString('base64');
    expect(() => loadConfig({ WARDEN_SECRET_KEY: key, WARDEN_SECRET_KEY_FILE: '/run/secrets/warden-key' })).toThrow(
      'WARDEN_SECRET_KEY_FILE is set together with WARDEN_SECRET_KEY: set only one of them',
    );
  });

  it('keeps the outbound allowlist as the listed ranges', () => {
    expect(loadConfig({ WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8,::1/128' }).outboundAllowlist).toEqual(['127.0.0.0/8', '::1/128']);
  });

  it('reads the request body limits below the body limit, with their defaults', () => {
    expect(loadConfig({})).toMatchObject({ maxJsonDepth: 64, maxStringBytes: 262_144, maxItemBytes: 1_048_576 });
    const c = loadConfig({ WARDEN_MAX_JSON_DEPTH: '16', WARDEN_MAX_STRING_BYTES: '2048', WARDEN_MAX_ITEM_BYTES: '4096' });
    expect(c).toMatchObject({ maxJsonDepth: 16, maxStringBytes: 2048, maxItemBytes: 4096 });
    expect(() => loadConfig({ WARDEN_MAX_JSON_DEPTH: '1000' })).toThrow('WARDEN_MAX_JSON_DEPTH must be between 4 and 256, got 1000');
    expect(() => loadConfig({ WARDEN_MAX_STRING_BYTES: '10' })).toThrow('WARDEN_MAX_STRING_BYTES must be between 1024 and 1073741824, got 10');
  });

  it('reads the SAML ACS limits and whether it takes SHA-1, with their defaults (SHA-1 refused)', () => {
    expect(loadConfig({}).saml).toEqual({ bodyLimitBytes: 262_144, maxElements: 1_000, allowSha1: false });
    expect(loadConfig({ WARDEN_SAML_BODY_LIMIT_BYTES: '65536', WARDEN_SAML_MAX_ELEMENTS: '300', WARDEN_SAML_ALLOW_SHA1: 'true' }).saml).toEqual({
      bodyLimitBytes: 65_536,
      maxElements: 300,
      allowSha1: true,
    });
    expect(() => loadConfig({ WARDEN_SAML_ALLOW_SHA1: 'yes' })).toThrow('WARDEN_SAML_ALLOW_SHA1 must be one of true, false, got "yes"');
    expect(() => loadConfig({ WARDEN_SAML_MAX_ELEMENTS: '10' })).toThrow('WARDEN_SAML_MAX_ELEMENTS must be between 100 and 100000, got 10');
  });

  it('has every variable it reads documented in docs/configuration.md with its default', () => {
    const doc = readFileSync(new URL('../../../../docs/configuration.md', import.meta.url), 'utf8');
    for (const name of CONFIG_VARIABLES) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toBeDefined();
      expect(row!.split('|')[2]!.trim(), `${name} default`).not.toBe('');
    }
  });

  it('leaves the inbound topic off unless WARDEN_NATS_URL is set, and never repeats the URL (it may carry credentials)', () => {
    expect(loadConfig({}).inboundTopic).toBeUndefined();
    expect(loadConfig({ WARDEN_NATS_URL: 'nats://a:4222, tls://b:4222', WARDEN_NATS_CREDENTIALS_FILE: 'creds' }, '/srv').inboundTopic).toEqual({
      servers: ['nats://a:4222', 'tls://b:4222'],
      credentialsFile: '/srv/creds',
      subjectPrefix: 'warden',
      stream: 'WARDEN_ITEMS',
      consumer: 'warden-items',
      batch: 100,
      ackWaitMs: 30_000,
    });
    expect(() => loadConfig({ WARDEN_NATS_CREDENTIALS_FILE: 'creds' })).toThrow(/WARDEN_NATS_CREDENTIALS_FILE.*is set without WARDEN_NATS_URL/s);
    expect(() => loadConfig({ WARDEN_NATS_URL: 'https://user:hunter2@broker' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});
