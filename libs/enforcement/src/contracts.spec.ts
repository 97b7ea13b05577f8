import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../test/support/events.js';
import { sealingEventStore, sqliteStores } from '../../../test/support/sqlite-stores.js';
import { PersonalDataPolicy } from '#warden/eventstore';
import { type JsonObject, streamName } from '#warden/kernel';
import { ENFORCEMENT_PERSONAL_DATA } from './contracts.js';

const EMAIL = 'lead-4d2a@acme.example';

/** A bulk action asked for by the console user `usr_1`. */
const requested = () =>
  anEvent('BulkActionRequested', {
    bulkActionId: 'blk_1',
    actionId: 'remove',
    policyIds: ['spam'],
    reason: 'spam campaign',
    items: [{ id: 'p1', typeId: 'post' }],
    chunkSize: 100,
    requestedBy: 'user:usr_1',
    requester: { userId: 'usr_1', email: EMAIL },
    requestedAt: '2026-03-01T10:00:00.000Z',
  } as unknown as JsonObject);

describe("enforcement's personal data: a bulk action's manager email", () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  function codec() {
    stores = sqliteStores();
    return sealingEventStore(stores, new PersonalDataPolicy().registerAll(ENFORCEMENT_PERSONAL_DATA));
  }

  it("is sealed under the console user's key, and reads back as given", async () => {
    const { store } = codec();
    await store.append(streamName('bulk_action', 'acme', 'blk_1'), [requested()], 'no_stream');
    expect(JSON.stringify(await stores.events.readAll())).not.toContain(EMAIL);
    const [event] = await store.readAll();
    expect(event!.data).toMatchObject({ requestedBy: 'user:usr_1', requester: { userId: 'usr_1', email: EMAIL }, reason: 'spam campaign' });
  });

  it("reads as null once the console user's key is forgotten, the rest of the request kept", async () => {
    const { store, keys } = codec();
    await store.append(streamName('bulk_action', 'acme', 'blk_1'), [requested()], 'no_stream');
    expect(await keys.forget('acme', 'usr_1')).toBe(1);
    const [event] = await store.readAll();
    expect(JSON.stringify(event)).not.toContain(EMAIL);
    expect(event!.data).toMatchObject({ requester: { userId: 'usr_1', email: null }, reason: 'spam campaign', items: [{ id: 'p1', typeId: 'post' }] });
    expect(event!.metadata.personalDataRedacted).toBe(true);
  });
});
