import { afterAll, describe, expect, it } from 'vitest';
import { CountingEventStore } from '../../../test/support/counting-event-store.js';
import { anEvent } from '../../../test/support/events.js';
import { sqliteStores } from '../../../test/support/sqlite-stores.js';
import { newestEvents } from './newest-events.js';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';

describe("newestEvents: a stream's newest part, read backwards", () => {
  const stores = sqliteStores();
  afterAll(() => stores.close());
  const store = new CountingEventStore(new SqliteEventStore(stores.open()));
  const stream = 'newest-1';
  const filled = (async () => {
    // 1,000 events: every tenth a B, the rest A.
    const events = Array.from({ length: 1_000 }, (_, i) => anEvent(i % 10 === 0 ? 'B' : 'A', { i }));
    await store.append(stream, events, 'no_stream');
  })();

  it('hands back the newest wanted events, newest first, reading only the pages they are in', async () => {
    await filled;
    store.reset();
    const bs = await newestEvents(store, stream, { count: 3, wanted: (e) => e.type === 'B', pageSize: 16 });
    expect(bs.map((e) => e.data['i'])).toEqual([990, 980, 970]);
    // Revisions 999 down to 970: two pages of 16.
    expect(store.eventsRead).toBe(32);
  });

  it('reads from `through` down, stops at `stop` (without it) and at the start', async () => {
    await filled;
    const upTo = await newestEvents(store, stream, { count: 2, through: 15 });
    expect(upTo.map((e) => e.revision)).toEqual([15, 14]);
    const stopped = await newestEvents(store, stream, { count: 100, wanted: (e) => e.type === 'A', stop: (e) => e.type === 'B' });
    expect(stopped.map((e) => e.revision)).toEqual([999, 998, 997, 996, 995, 994, 993, 992, 991]);
    const all = await newestEvents(store, stream, { count: 5_000, wanted: (e) => e.type === 'B', pageSize: 300 });
    expect(all).toHaveLength(100);
    expect(await newestEvents(store, 'newest-missing', { count: 3 })).toEqual([]);
  });
});
