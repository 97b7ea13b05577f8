import { describe, expect, it } from 'vitest';
import { allowlistMatcher, ConfigError, loadConfig } from './warden-config.js';

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
      outboundAllowlist: [],
      logLevel: 'info',
      bodyLimitBytes: 10 * 1024 * 1024,
      rateLimitPerSecond: 100,
      rateLimitBurst: 200,
      sqliteSync: 'full',
      reactorLease: { ttlMs: 10_000, renewEveryMs: 3_000 },
    });
  });

  it('reads the reactor lease timing', () => {
    const c = loadConfig({ WARDEN_REACTOR_LEASE_TTL: '4s', WARDEN_REACTOR_LEASE_RENEW: '500ms' });
    expect(c.reactorLease).toEqual({ ttlMs: 4000, renewEveryMs: 500 });
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
    [{ WARDEN_REACTOR_LEASE_TTL: '500ms' }, 'WARDEN_REACTOR_LEASE_TTL must be at least 1s'],
    [{ WARDEN_REACTOR_LEASE_TTL: '10s', WARDEN_REACTOR_LEASE_RENEW: '6s' }, 'WARDEN_REACTOR_LEASE_RENEW must be at most half of WARDEN_REACTOR_LEASE_TTL'],
    [{ WARDEN_REACTOR_LEASE_RENEW: 'often' }, 'WARDEN_REACTOR_LEASE_RENEW has an invalid duration'],
  ])('refuses %o with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('parses the outbound allowlist into a matcher', () => {
    const c = loadConfig({ WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8,::1/128' });
    const m = allowlistMatcher(c.outboundAllowlist);
    expect(m.check('127.0.0.1', 'ipv4')).toBe(true);
    expect(m.check('10.0.0.1', 'ipv4')).toBe(false);
    expect(m.check('::1', 'ipv6')).toBe(true);
  });
});
