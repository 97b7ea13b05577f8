import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner, rebuildReadModels } from '#warden/eventstore';
import { apiKeyStream, organizationStream } from '../domain/identity.streams.js';
import { identityProjection } from './identity.projection.js';
import { API_KEYS, API_KEYS_BY_HASH, ORGANIZATIONS } from './identity.read-model.js';

const keyCreated = (orgId: string, keyId: string, hash: string, rotatedFrom: string | null = null) =>
  anEvent('ApiKeyCreated', { keyId, orgId, name: keyId, team: null, hash, prefix: 'wdn_x', rotatedFrom }, orgId);

describe('identity projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  async function seed() {
    const { events } = stores;
    await events.append(organizationStream('acme'), [anEvent('OrganizationCreated', { orgId: 'acme', name: 'Acme' }, 'acme')], 'no_stream');
    await events.append(organizationStream('globex'), [anEvent('OrganizationCreated', { orgId: 'globex', name: 'Globex' }, 'globex')], 'no_stream');
    await events.append(apiKeyStream('acme', 'k1'), [keyCreated('acme', 'k1', 'h1')], 'no_stream');
    await events.append(apiKeyStream('acme', 'k2'), [keyCreated('acme', 'k2', 'h2', 'k1')], 'no_stream');
    await events.append(apiKeyStream('acme', 'k1'), [anEvent('ApiKeyRotated', { keyId: 'k1', replacedBy: 'k2' }, 'acme')], 0);
    await events.append(apiKeyStream('globex', 'k3'), [keyCreated('globex', 'k3', 'h3')], 'no_stream');
    await events.append(apiKeyStream('globex', 'k3'), [anEvent('ApiKeyRevoked', { keyId: 'k3' }, 'globex')], 0);
  }

  const dump = async () => JSON.stringify(await Promise.all([ORGANIZATIONS, API_KEYS, API_KEYS_BY_HASH].map((c) => stores.readStore.find(c))));

  it('tracks organizations and key status, indexed by hash', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(identityProjection, stores.events, stores.readStore).catchUp();
    expect(await stores.readStore.get(API_KEYS_BY_HASH, 'h1')).toEqual({ keyId: 'k1', orgId: 'acme', team: null, status: 'rotated' });
    expect(await stores.readStore.get(API_KEYS_BY_HASH, 'h2')).toMatchObject({ status: 'active' });
    expect(await stores.readStore.get(API_KEYS_BY_HASH, 'h3')).toMatchObject({ orgId: 'globex', status: 'revoked' });
    expect(await stores.readStore.get(API_KEYS, 'k1')).toMatchObject({ replacedBy: 'k2', status: 'rotated' });
    expect(await stores.readStore.count(API_KEYS, { orgId: 'acme' })).toBe(2);
  });

  it('leaves every read model identical when the whole log is replayed twice', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(identityProjection, stores.events, stores.readStore).catchUp();
    const live = await dump();
    await rebuildReadModels([identityProjection], stores.events, stores.readStore);
    const once = await dump();
    await rebuildReadModels([identityProjection], stores.events, stores.readStore);
    expect(once).toBe(live);
    expect(await dump()).toBe(once);
  });
});
