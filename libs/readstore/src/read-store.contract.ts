import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointConflictError, type ReadStore } from './read-store.port.js';

/** The one behaviour every ReadStore adapter must show; collection names are unique per run. */
export function readStoreContract(adapter: string, open: () => Promise<ReadStore>): void {
  describe(`ReadStore contract: ${adapter}`, () => {
    let store: ReadStore;
    const run = randomUUID().slice(0, 8);
    const coll = (name: string) => `contract_${run}_${name}`;

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('puts, gets and deletes documents by id', async () => {
      const c = coll('basic');
      await store.commit([{ op: 'put', collection: c, id: 'a', doc: { name: 'A', tags: ['x'], n: { deep: 1 } } }]);
      expect(await store.get(c, 'a')).toEqual({ name: 'A', tags: ['x'], n: { deep: 1 } });
      await store.commit([{ op: 'put', collection: c, id: 'a', doc: { name: 'A2' } }]);
      expect(await store.get(c, 'a')).toEqual({ name: 'A2' });
      await store.commit([{ op: 'delete', collection: c, id: 'a' }]);
      expect(await store.get(c, 'a')).toBeUndefined();
      expect(await store.get(coll('other'), 'a')).toBeUndefined();
    });

    it('answers finds the same with an index on the filtered fields, declared any number of times', async () => {
      const c = coll('indexed');
      await store.commit(
        Array.from({ length: 30 }, (_, i) => ({
          op: 'put' as const,
          collection: c,
          id: String(i).padStart(2, '0'),
          doc: { org: i % 3 === 0 ? 'a' : 'b', kind: i % 2 === 0 ? 'rule' : 'action', archived: i % 5 === 0, n: i },
        })),
      );
      const queries = async () => [
        await store.find(c, { org: 'a', kind: 'rule', archived: false }, { sort: [{ field: 'n', direction: 'desc' }] }),
        await store.find(c, { org: 'b' }, { limit: 4 }),
        await store.count(c, { org: 'a', kind: 'rule' }),
      ];
      const before = await queries();
      await store.ensureIndex(c, ['org', 'kind', 'archived']);
      await store.ensureIndex(c, ['org', 'kind', 'archived']);
      expect(await queries()).toEqual(before);
      expect((before[0] as Array<{ n: number }>).map((d) => d.n)).toEqual([24, 18, 12, 6]);
    });

    it('drops an index it made, by its fields, once; the others stay and finds answer the same', async () => {
      const c = coll('dropped');
      expect(await store.dropIndex(coll('never_written'), ['org'])).toBe(false);
      await store.commit(
        Array.from({ length: 10 }, (_, i) => ({
          op: 'put' as const,
          collection: c,
          id: String(i),
          doc: { org: 'a', day: i % 2, n: i, item: { id: `i${i}` } },
        })),
      );
      await store.ensureIndex(c, ['org', 'day']);
      await store.ensureIndex(c, ['org', 'item.id']);
      const query = () => store.find(c, { org: 'a', day: 1 }, { sort: [{ field: 'n', direction: 'asc' }] });
      const before = await query();
      expect(await store.dropIndex(c, ['org', 'item.id'])).toBe(true);
      // Dropped already (by this process or another): nothing to do, no error.
      expect(await store.dropIndex(c, ['org', 'item.id'])).toBe(false);
      // Never made on these fields: nothing dropped, the other index untouched.
      expect(await store.dropIndex(c, ['org'])).toBe(false);
      expect(await query()).toEqual(before);
      expect(await store.count(c)).toBe(10);
      expect(await store.dropIndex(c, ['org', 'day'])).toBe(true);
    });

    it('finds by equality on top-level and nested fields, with null, booleans, sort, skip and limit', async () => {
      const c = coll('find');
      await store.commit([
        { op: 'put', collection: c, id: '1', doc: { org: 'a', n: 3, active: true, owner: { id: 'u1' }, note: null } },
        { op: 'put', collection: c, id: '2', doc: { org: 'a', n: 1, active: false, owner: { id: 'u2' }, note: 'x' } },
        { op: 'put', collection: c, id: '3', doc: { org: 'a', n: 2, active: true, owner: { id: 'u1' }, note: null } },
        { op: 'put', collection: c, id: '4', doc: { org: 'b', n: 0, active: true, owner: { id: 'u1' }, note: null } },
      ]);
      const ns = (docs: { n?: unknown }[]) => docs.map((d) => d.n);
      expect(ns(await store.find(c, { org: 'a' }, { sort: [{ field: 'n', direction: 'asc' }] }))).toEqual([1, 2, 3]);
      expect(ns(await store.find(c, { org: 'a' }, { sort: [{ field: 'n', direction: 'desc' }] }))).toEqual([3, 2, 1]);
      expect(ns(await store.find(c, { org: 'a', active: true }, { sort: [{ field: 'n', direction: 'asc' }] }))).toEqual([2, 3]);
      expect(ns(await store.find(c, { 'owner.id': 'u1', org: 'a' }, { sort: [{ field: 'n', direction: 'asc' }] }))).toEqual([2, 3]);
      expect(ns(await store.find(c, { note: null, org: 'a' }, { sort: [{ field: 'n', direction: 'asc' }] }))).toEqual([2, 3]);
      expect(ns(await store.find(c, { org: 'a' }, { sort: [{ field: 'n', direction: 'asc' }], skip: 1, limit: 1 }))).toEqual([2]);
      expect(await store.count(c, { org: 'a' })).toBe(3);
      expect(await store.count(c)).toBe(4);
      // Counted up to a limit: what a list's "so many or more" reads.
      expect(await store.count(c, { org: 'a' }, { limit: 2 })).toBe(2);
      expect(await store.count(c, { org: 'a' }, { limit: 3 })).toBe(3);
      expect(await store.count(c, { org: 'a' }, { limit: 10 })).toBe(3);
      expect(await store.count(coll('empty'), {}, { limit: 10 })).toBe(0);
      expect(await store.find(coll('empty'))).toEqual([]);
    });

    it('finds by id when asked (byId), whatever the order of writing: ties and an unsorted find alike', async () => {
      const c = coll('byid');
      for (const id of ['m', 'c', 'x', 'a']) await store.commit([{ op: 'put', collection: c, id, doc: { id, rank: id === 'x' ? 2 : 1 } }]);
      expect((await store.find<{ id: string }>(c, {}, { byId: true })).map((d) => d.id)).toEqual(['a', 'c', 'm', 'x']);
      expect((await store.find<{ id: string }>(c, {}, { byId: true, skip: 1, limit: 2 })).map((d) => d.id)).toEqual(['c', 'm']);
      const ranked = await store.find<{ id: string }>(c, {}, { sort: [{ field: 'rank', direction: 'desc' }], byId: true });
      expect(ranked.map((d) => d.id)).toEqual(['x', 'a', 'c', 'm']);
    });

    it("finds by a range on a field: below, at or above, both, with an index, values of the bound's type only", async () => {
      const c = coll('range');
      const at = (minute: number) => `2026-11-27T10:${String(minute).padStart(2, '0')}:00.000Z`;
      await store.commit([
        ...[5, 10, 15, 20].map((m) => ({ op: 'put' as const, collection: c, id: `t${m}`, doc: { org: 'a', at: at(m), n: m } })),
        { op: 'put', collection: c, id: 'other-org', doc: { org: 'b', at: at(1), n: 1 } },
        // A number where others have text, and text where others have numbers: a bound of the other type leaves them out.
        { op: 'put', collection: c, id: 'mixed', doc: { org: 'a', at: 7, n: 'seven' } },
      ]);
      await store.ensureIndex(c, ['org', 'at']);
      const ids = async (filter: Parameters<ReadStore['find']>[1]) =>
        (await store.find<{ n: unknown }>(c, filter, { sort: [{ field: 'at', direction: 'asc' }] })).map((d) => d.n);
      expect(await ids({ org: 'a', at: { lt: at(15) } })).toEqual([5, 10]);
      expect(await ids({ org: 'a', at: { gte: at(15) } })).toEqual([15, 20]);
      expect(await ids({ org: 'a', at: { gte: at(10), lt: at(20) } })).toEqual([10, 15]);
      // The same instant without milliseconds is another string ('Z' sorts after '.'): callers normalize their bounds.
      expect(await ids({ org: 'a', at: { lt: '2026-11-27T10:10:00.000Z' } })).toEqual([5]);
      expect(await ids({ org: 'a', at: { lt: '2026-11-27T10:10:00Z' } })).toEqual([5, 10]);
      expect(await store.count(c, { org: 'a', n: { gte: 10 } })).toBe(3);
      expect(await store.count(c, { org: 'a', n: { lt: 100 } })).toBe(4);
      expect(await store.count(c, { org: 'a', at: {} })).toBe(5);
    });

    it('moves a checkpoint with its writes and refuses a stale move', async () => {
      const c = coll('cp');
      const p = `proj_${run}`;
      expect(await store.checkpoint(p)).toBe(0);
      await store.commit([{ op: 'put', collection: c, id: 'x', doc: { v: 1 } }], { projection: p, from: 0, to: 7 });
      expect(await store.checkpoint(p)).toBe(7);
      await expect(store.commit([{ op: 'put', collection: c, id: 'y', doc: { v: 2 } }], { projection: p, from: 0, to: 9 })).rejects.toBeInstanceOf(
        CheckpointConflictError,
      );
      expect(await store.checkpoint(p)).toBe(7);
      await store.commit([], { projection: p, from: 7, to: 9 });
      expect(await store.checkpoint(p)).toBe(9);
    });

    it('moves a checkpoint from none to 0 (a successor decided at the beginning of the log), and from 0 on later', async () => {
      const c = coll('cp0');
      const p = `proj0_${run}`;
      await store.commit([{ op: 'put', collection: c, id: 'decided', doc: { start: 0 } }], { projection: p, from: 0, to: 0 });
      expect(await store.get(c, 'decided')).toEqual({ start: 0 });
      expect(await store.checkpoint(p)).toBe(0);
      await store.commit([], { projection: p, from: 0, to: 5 });
      expect(await store.checkpoint(p)).toBe(5);
      await expect(store.commit([], { projection: p, from: 0, to: 6 })).rejects.toBeInstanceOf(CheckpointConflictError);
    });

    it('resets collections and checkpoints for a rebuild, leaving others alone', async () => {
      const c = coll('reset');
      const keep = coll('keep');
      const p = `proj_reset_${run}`;
      await store.commit(
        [
          { op: 'put', collection: c, id: '1', doc: { v: 1 } },
          { op: 'put', collection: keep, id: '1', doc: { v: 1 } },
        ],
        { projection: p, from: 0, to: 3 },
      );
      await store.reset([c], [p]);
      expect(await store.count(c)).toBe(0);
      expect(await store.count(keep)).toBe(1);
      expect(await store.checkpoint(p)).toBe(0);
    });

    it('never writes a document back to an earlier or equal position, and reports its position', async () => {
      const c = coll('positioned');
      await store.commit([{ op: 'put', collection: c, id: 'd', doc: { v: 'at 5' }, position: 5 }]);
      expect(await store.getVersioned(c, 'd')).toEqual({ doc: { v: 'at 5' }, position: 5 });
      // A redelivered write (same position) and a stale one (earlier) change nothing.
      await store.commit([
        { op: 'put', collection: c, id: 'd', doc: { v: 'again at 5' }, position: 5 },
        { op: 'put', collection: c, id: 'e', doc: { v: 'new at 5' }, position: 5 },
      ]);
      await store.commit([{ op: 'put', collection: c, id: 'd', doc: { v: 'at 3' }, position: 3 }]);
      await store.commit([{ op: 'delete', collection: c, id: 'd', position: 4 }]);
      expect(await store.get(c, 'd')).toEqual({ v: 'at 5' });
      expect(await store.get(c, 'e')).toEqual({ v: 'new at 5' });
      expect(await store.find(c, {}, { sort: [{ field: 'v', direction: 'asc' }] })).toEqual([{ v: 'at 5' }, { v: 'new at 5' }]);
      // Later positions apply; a write without a position (a tool) always applies.
      await store.commit([{ op: 'put', collection: c, id: 'd', doc: { v: 'at 8' }, position: 8 }]);
      expect(await store.getVersioned(c, 'd')).toEqual({ doc: { v: 'at 8' }, position: 8 });
      await store.commit([{ op: 'put', collection: c, id: 'd', doc: { v: 'unpositioned' } }]);
      expect(await store.getVersioned(c, 'd')).toEqual({ doc: { v: 'unpositioned' }, position: 0 });
      await store.commit([{ op: 'delete', collection: c, id: 'e', position: 9 }]);
      expect(await store.getVersioned(c, 'e')).toBeUndefined();
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
