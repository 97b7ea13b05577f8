import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { streamName } from '#warden/kernel';

/**
 * better-sqlite3 builds a statement's row factory (a `new Function`) when the statement was
 * prepared anew, which SQLite does at every execution when a bound value may steer its plan
 * (`stream = ?` before an ORDER BY, a bare `LIMIT ?`): an append's revision look-up then cost
 * 19 µs instead of 2.4. Counting the factories built while the log is read shows it.
 */
function rowFactoriesBuilt(work: () => Promise<void>): Promise<number> {
  const original = globalThis.Function;
  let built = 0;
  globalThis.Function = new Proxy(original, {
    apply(target, self, args: unknown[]) {
      if (String(args.at(-1)).startsWith('return (')) built += 1;
      return Reflect.apply(target, self, args) as unknown;
    },
  });
  return work()
    .then(() => built)
    .finally(() => {
      globalThis.Function = original;
    });
}

describe('SqliteEventStore statements', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  it('are not prepared again at every execution (appends with a revision, stream and log reads)', async () => {
    stores = sqliteStores();
    const streams = Array.from({ length: 20 }, (_, i) => streamName('reprepare', `s${i}`));
    // Each statement once first: its row factory is built at its first row.
    for (const s of streams) await stores.events.append(s, [anEvent('Happened')], 'no_stream');
    await stores.events.append(streams[0]!, [anEvent('Happened')], 0);
    await stores.events.append(streams[0]!, [anEvent('Happened')], 'any');
    await stores.events.readStream(streams[0]!);
    await stores.events.readAll({ after: 0, maxCount: 5 });
    await stores.events.readAll({ after: 0, maxCount: 5, eventTypes: ['Happened'] });

    const built = await rowFactoriesBuilt(async () => {
      for (const [i, s] of streams.entries()) {
        await stores.events.append(s, [anEvent('Happened')], i === 0 ? 2 : 0);
        await stores.events.append(s, [anEvent('Happened')], 'any');
        await stores.events.readStream(s, { fromRevision: 1, maxCount: 2 });
        await stores.events.readAll({ after: i, maxCount: 3 + i });
        await stores.events.readAll({ after: i, maxCount: 3 + i, eventTypes: ['Happened'] });
      }
    });
    expect(built).toBe(0);
  });
});

describe('SqliteReadStore find', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  it('is not prepared again at every execution: equalities and ranges on indexed fields, a limit', async () => {
    stores = sqliteStores();
    const rs = stores.readStore;
    await rs.ensureIndex('docs', ['orgId', 'itemId', 'position']);
    await rs.commit(
      Array.from({ length: 30 }, (_, i) => ({ op: 'put' as const, collection: 'docs', id: `d${i}`, doc: { orgId: 'o', itemId: `i${i % 3}`, position: i } })),
    );
    const query = (i: number) =>
      rs.find('docs', { orgId: 'o', itemId: `i${i % 3}`, position: { lt: 20 + i } }, { sort: [{ field: 'position', direction: 'desc' }], limit: 2 + i });
    expect((await query(0)).map((d) => (d as { position?: number }).position)).toEqual([18, 15]);
    const built = await rowFactoriesBuilt(async () => {
      for (let i = 0; i < 9; i++) await query(i);
    });
    expect(built).toBe(0);
  });
});
