import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#warden/eventstore';
import { randomIds } from '#warden/kernel';
import { CountingEventStore } from '../../../../test/support/counting-event-store.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { itemStream } from '#warden/ingestion';
import { evaluationStream } from '../domain/evaluation.streams.js';
import { contentKey, itemContentDigest } from '../domain/item-content.js';
import { ContentKeyReader } from './content-key-reader.js';

const ORG = 'acme';
/** The live run: what records the keys (every run chains from them). */
const RUN = 'LIVE';
const metadata = (at: number) => ({
  orgId: ORG,
  correlationId: 'c',
  causationId: null,
  actor: 'test',
  occurredAt: new Date(at * 1000).toISOString(),
  schemaVersion: 1,
});

describe("ContentKeyReader: a version's content key, from the previous version's record", () => {
  const stores = sqliteStores();
  afterAll(() => stores.close());
  const events = new CountingEventStore(new SqliteEventStore(stores.open()));
  const reader = new ContentKeyReader(events);
  const content = { data: { text: 'buy now' }, creator: { id: 'u1', typeId: 'user' } };
  const digest = itemContentDigest(content);

  /** `count` identical versions of item `id` on its stream. */
  async function versions(id: string, count: number): Promise<void> {
    const submitted = Array.from({ length: count }, (_, v) => ({
      id: randomIds.uuid(),
      type: 'ItemSubmitted',
      data: { itemId: id, typeId: 'post', typeVersion: null, typeSchemaVariant: 'original', ...content, subject: 'user:u1', source: 'report' },
      metadata: metadata(v),
    }));
    await events.append(itemStream(ORG, 'post', id), submitted, 'no_stream');
  }
  /** Version `version`'s evaluation, recording `key` (undefined: recorded before keys were kept). */
  async function evaluated(id: string, version: number, key: string | null | undefined): Promise<void> {
    const data = { item: { id, typeId: 'post' }, version, rules: [], actions: [], ...(key === undefined ? {} : { content: key }) };
    await events.append(
      evaluationStream(ORG, 'post', id, version, RUN),
      [{ id: randomIds.uuid(), type: 'ItemEvaluated', data, metadata: metadata(version) }],
      'no_stream',
    );
  }
  const item = (id: string) => ({ id, typeId: 'post', ...content });

  it("carries the previous version's key on: one event read, however long the run of identical versions", async () => {
    await versions('p1', 300);
    for (let v = 0; v < 299; v++) await evaluated('p1', v, contentKey(digest, 0));
    events.reset();
    expect(await reader.read(ORG, item('p1'), 299)).toBe(contentKey(digest, 0));
    expect(events.eventsRead).toBe(1);
  });

  it('begins a new run where the previous version recorded other content', async () => {
    await versions('p2', 3);
    await evaluated('p2', 1, contentKey('other-digest', 0));
    expect(await reader.read(ORG, item('p2'), 2)).toBe(contentKey(digest, 2));
  });

  it('reads back through the versions where the previous version recorded no key (earlier releases, erased), as before', async () => {
    await versions('p3', 300);
    for (let v = 0; v < 299; v++) await evaluated('p3', v, v === 298 ? null : undefined);
    events.reset();
    expect(await reader.read(ORG, item('p3'), 299)).toBe(contentKey(digest, 0));
    expect(events.eventsRead).toBeGreaterThanOrEqual(299);
    // Version 0 reads nothing.
    events.reset();
    expect(await reader.read(ORG, item('p1'), 0)).toBe(contentKey(digest, 0));
    expect(events.eventsRead).toBe(0);
  });
});
