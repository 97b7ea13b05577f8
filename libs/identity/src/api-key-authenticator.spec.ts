import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../test/support/events.js';
import { sqliteStores } from '../../../test/support/sqlite-stores.js';
import { FixedClock } from '#warden/kernel';
import { Metrics } from '#warden/platform';
import { ProjectionHost, type Storage } from '#warden/storage';
import { CachedApiKeyAuthenticator } from './api-key-authenticator.js';
import { hashApiKey } from './domain/api-key-secret.js';
import { apiKeyStream, organizationStream } from './domain/identity.streams.js';
import { identityProjection } from './projections/identity.projection.js';

const created = (orgId: string, keyId: string, raw: string, team: string | null = null, rotatedFrom: string | null = null) =>
  anEvent('ApiKeyCreated', { keyId, orgId, name: keyId, team, hash: hashApiKey(raw), prefix: raw.slice(0, 10), rotatedFrom }, orgId);

describe('CachedApiKeyAuthenticator', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  /** An authenticator over the log as the identity projection reads it; nothing projected until a lookup misses. */
  const authenticatorOn = () => {
    stores = sqliteStores();
    const storage = { events: stores.events, storedEvents: stores.events, readStore: stores.readStore, sequentialPositions: true } as unknown as Storage;
    const clock = new FixedClock(new Date('2026-01-01T00:00:00Z'));
    const host = new ProjectionHost(storage, new Metrics(), { reactorLease: { ttlMs: 10_000, renewEveryMs: 3_000 } }, clock);
    host.register(identityProjection);
    return {
      authenticator: new CachedApiKeyAuthenticator(stores.readStore, host, clock, { apiKeyUsageFlushSeconds: 10 }),
      events: stores.events,
      readStore: stores.readStore,
      clock,
    };
  };

  it('answers ok with the principal for an active key, and why not for a revoked or rotated-out one', async () => {
    const { authenticator, events } = authenticatorOn();
    await events.append(organizationStream('acme'), [anEvent('OrganizationCreated', { orgId: 'acme', name: 'Acme' }, 'acme')], 'no_stream');
    await events.append(apiKeyStream('acme', 'old'), [created('acme', 'old', 'wdn_old-secret')], 'no_stream');
    await events.append(apiKeyStream('acme', 'new'), [created('acme', 'new', 'wdn_new-secret', 'trust-safety', 'old')], 'no_stream');
    await events.append(apiKeyStream('acme', 'old'), [anEvent('ApiKeyRotated', { keyId: 'old', replacedBy: 'new' }, 'acme')], 0);
    await events.append(apiKeyStream('acme', 'gone'), [created('acme', 'gone', 'wdn_gone-secret')], 'no_stream');
    await events.append(apiKeyStream('acme', 'gone'), [anEvent('ApiKeyRevoked', { keyId: 'gone' }, 'acme')], 0);

    expect(await authenticator.authenticate('wdn_new-secret')).toEqual({
      outcome: 'ok',
      principal: { orgId: 'acme', keyId: 'new', team: 'trust-safety' },
    });
    expect(await authenticator.authenticate('wdn_old-secret')).toEqual({ outcome: 'inactive', reason: 'rotated' });
    expect(await authenticator.authenticate('wdn_gone-secret')).toEqual({ outcome: 'inactive', reason: 'revoked' });
    expect(await authenticator.authenticate('wdn_never-issued')).toEqual({ outcome: 'unknown' });
    // A hash is the whole key: a key that differs only in case or by a prefix is another key.
    expect(await authenticator.authenticate('WDN_NEW-SECRET')).toEqual({ outcome: 'unknown' });
    expect(await authenticator.authenticate('wdn_new-secre')).toEqual({ outcome: 'unknown' });
  });

  it('finds a key created after its last look at the read model (a miss catches up with the log), and records only successful use', async () => {
    const { authenticator, events, readStore } = authenticatorOn();
    expect(await authenticator.authenticate('wdn_fresh')).toEqual({ outcome: 'unknown' });
    await events.append(apiKeyStream('acme', 'fresh'), [created('acme', 'fresh', 'wdn_fresh')], 'no_stream');
    await events.append(apiKeyStream('acme', 'dead'), [created('acme', 'dead', 'wdn_dead'), anEvent('ApiKeyRevoked', { keyId: 'dead' }, 'acme')], 'no_stream');
    expect(await authenticator.authenticate('wdn_fresh')).toMatchObject({ outcome: 'ok', principal: { keyId: 'fresh' } });
    expect(await authenticator.authenticate('wdn_dead')).toEqual({ outcome: 'inactive', reason: 'revoked' });
    await authenticator.flushUsage();
    expect(await readStore.get('identity_api_key_usage', 'fresh')).toEqual({ lastUsedAt: '2026-01-01T00:00:00.000Z' });
    expect(await readStore.count('identity_api_key_usage')).toBe(1);
  });

  it('keeps a use it could not record for the next flush, and a later use wins', async () => {
    const { authenticator, events, readStore, clock } = authenticatorOn();
    await events.append(apiKeyStream('acme', 'k1'), [created('acme', 'k1', 'wdn_k1')], 'no_stream');
    await events.append(apiKeyStream('acme', 'k2'), [created('acme', 'k2', 'wdn_k2')], 'no_stream');
    await authenticator.authenticate('wdn_k1');
    await authenticator.authenticate('wdn_k2');
    // The read store refuses one commit (as a store busy past its timeout does).
    const commit = readStore.commit.bind(readStore);
    let refusals = 1;
    readStore.commit = (ops) => (refusals-- > 0 ? Promise.reject(new Error('SQLITE_BUSY: database is locked')) : commit(ops));
    await authenticator.flushUsage();
    expect(await readStore.count('identity_api_key_usage')).toBe(0);
    clock.advance(60_000);
    await authenticator.authenticate('wdn_k2');
    await authenticator.flushUsage();
    expect(await readStore.get('identity_api_key_usage', 'k1')).toEqual({ lastUsedAt: '2026-01-01T00:00:00.000Z' });
    expect(await readStore.get('identity_api_key_usage', 'k2')).toEqual({ lastUsedAt: '2026-01-01T00:01:00.000Z' });
  });

  it('never writes a use it kept back over a later one, when the flush that failed ends after the next flush', async () => {
    const { authenticator, events, readStore, clock } = authenticatorOn();
    await events.append(apiKeyStream('acme', 'k1'), [created('acme', 'k1', 'wdn_k1')], 'no_stream');
    await authenticator.authenticate('wdn_k1');
    // The first flush's commit waits on a busy store past the next flush (10 s later), then fails.
    const commit = readStore.commit.bind(readStore);
    let refuse!: (error: Error) => void;
    let calls = 0;
    readStore.commit = (ops) => (calls++ === 0 ? new Promise((_, reject) => (refuse = reject)) : commit(ops));
    const first = authenticator.flushUsage();
    clock.advance(60_000);
    await authenticator.authenticate('wdn_k1');
    const second = authenticator.flushUsage();
    await new Promise((resolve) => setImmediate(resolve));
    refuse(new Error('SQLITE_BUSY: database is locked'));
    await Promise.all([first, second]);
    await authenticator.flushUsage();
    expect(await readStore.get('identity_api_key_usage', 'k1')).toEqual({ lastUsedAt: '2026-01-01T00:01:00.000Z' });
  });
});
