import { afterEach, describe, expect, it } from 'vitest';
import { crashingBeforeCheckpoint } from '../../../../test/support/crashing-read-store.js';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner, rebuildReadModels } from '#warden/eventstore';
import type { JsonObject, NewEvent } from '#warden/kernel';
import {
  CREATOR_SUBMISSIONS,
  type CreatorSubmissionsDoc,
  countWithin,
  creatorSubmissionsDocId,
  creatorSubmissionsProjection,
} from './creator-submissions.projection.js';

const NOW = new Date('2026-03-02T09:30:00.000Z');
const u1 = { id: 'u1', typeId: 'user' };
const u2 = { id: 'u2', typeId: 'user' };

/** `itemId`'s version submitted by `creator`, `secondsAgo` before NOW. */
function submitted(itemId: string, creator: { id: string; typeId: string } | null, secondsAgo: number, source?: string): NewEvent {
  const event = anEvent('ItemSubmitted', { item: { id: itemId, typeId: 'post' }, version: 0, creator, ...(source ? { source } : {}) } as unknown as JsonObject);
  return { ...event, metadata: { ...event.metadata, occurredAt: new Date(NOW.getTime() - secondsAgo * 1000).toISOString() } };
}

describe('creator submissions projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  const doc = (creator = u1) => stores.readStore.get<CreatorSubmissionsDoc>(CREATOR_SUBMISSIONS, creatorSubmissionsDocId('acme', creator));
  const catchUp = () => new ProjectionRunner(creatorSubmissionsProjection, stores.events, stores.readStore).catchUp();

  async function seed() {
    const { events } = stores;
    await events.append('item-acme:post:p1', [submitted('p1', u1, 120)], 'no_stream');
    await events.append('item-acme:post:p2', [submitted('p2', u1, 30)], 'no_stream');
    // A version fetched from the customer is no submission of its creator; an item without one counts for no one.
    await events.append('item-acme:post:p2', [submitted('p2', u1, 20, 'partial-fetch')], 0);
    // Nor is the reported version a report records (someone else reported the creator's post).
    await events.append('item-acme:post:p2', [submitted('p2', u1, 19, 'report'), submitted('p2', u1, 18, 'report')], 1);
    await events.append('item-acme:post:p3', [submitted('p3', null, 15)], 'no_stream');
    await events.append('item-acme:post:p4', [submitted('p4', u2, 12)], 'no_stream');
    await events.append('item-acme:post:p5', [submitted('p5', u1, 10)], 'no_stream');
    await events.append('item-acme:post:p6', [submitted('p6', u1, 0)], 'no_stream');
  }

  it("counts a creator's submissions within a window ending now, each creator on their own", async () => {
    stores = sqliteStores();
    await seed();
    await catchUp();
    const counts = async (creator: { id: string; typeId: string }) => {
      const found = await doc(creator);
      return [5, 11, 60, 3600].map((seconds) => countWithin(found, seconds, NOW));
    };
    expect(await counts(u1)).toEqual([1, 2, 3, 4]);
    expect(await counts(u2)).toEqual([0, 0, 1, 1]);
    expect(countWithin(undefined, 60, NOW)).toBe(0);
    expect(await doc()).toMatchObject({ orgId: 'acme', creator: u1, count: 4 });
  });

  it('keeps the newest thousand submissions', async () => {
    stores = sqliteStores();
    for (let i = 0; i < 1005; i++) await stores.events.append(`item-acme:post:f${i}`, [submitted(`f${i}`, u1, 1005 - i)], 'no_stream');
    await catchUp();
    const found = await doc();
    expect(found?.count).toBe(1000);
    expect(found?.at?.split(',')).toHaveLength(1000);
    // The five oldest (1005 to 1001 seconds ago) are gone; the newest thousand all count.
    expect(countWithin(found, 100_000, NOW)).toBe(1000);
    expect(countWithin(found, 10, NOW)).toBe(10);
  });

  it('reads a document stored in the earlier form (ISO times) and rewrites it on the next submission', async () => {
    stores = sqliteStores();
    const earlier = [90, 40].map((s) => new Date(NOW.getTime() - s * 1000).toISOString());
    const legacy: CreatorSubmissionsDoc = { orgId: 'acme', creator: u1, times: earlier };
    await stores.readStore.commit([{ op: 'put', collection: CREATOR_SUBMISSIONS, id: creatorSubmissionsDocId('acme', u1), doc: legacy, position: 0 }]);
    expect([30, 60, 120].map((s) => countWithin(legacy, s, NOW))).toEqual([0, 1, 2]);
    await stores.events.append('item-acme:post:p9', [submitted('p9', u1, 5)], 'no_stream');
    await catchUp();
    const rewritten = await doc();
    expect(rewritten?.times).toBeUndefined();
    expect(rewritten?.count).toBe(3);
    expect([10, 60, 120].map((s) => countWithin(rewritten, s, NOW))).toEqual([1, 2, 3]);
  });

  it('changes nothing when a batch is delivered again, and a rebuild gives the same documents', async () => {
    stores = sqliteStores();
    await seed();
    const dump = async () => JSON.stringify(await stores.readStore.find(CREATOR_SUBMISSIONS, {}, { byId: true }));
    // A process that dies after the writes, before its checkpoint moved (MongoDB's window).
    await expect(new ProjectionRunner(creatorSubmissionsProjection, stores.events, crashingBeforeCheckpoint(stores.readStore)).catchUp()).rejects.toThrow(
      'crashed',
    );
    await catchUp();
    expect(countWithin(await doc(), 3600, NOW)).toBe(4);
    const delivered = await dump();
    await rebuildReadModels([creatorSubmissionsProjection], stores.events, stores.readStore);
    expect(await dump()).toBe(delivered);
  });
});
