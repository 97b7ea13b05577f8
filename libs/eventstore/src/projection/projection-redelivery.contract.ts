import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewEvent } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import { crashingBeforeCheckpoint, crashingPartway } from '../../../../test/support/crashing-read-store.js';
import { openSqlite, type SqliteDatabase } from '../sqlite/sqlite-database.js';
import { SqliteEventStore } from '../sqlite/sqlite-event-store.js';
import type { Projection } from './projection.js';
import { ProjectionRunner } from './projection-runner.js';

const crash = new Error('process died after the writes, before the checkpoint moved');

function event(type: string, data: { [k: string]: string | number }): NewEvent {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'test', occurredAt: new Date(0).toISOString(), schemaVersion: 1 },
  };
}

/**
 * Redelivery of a batch whose writes landed without its checkpoint changes nothing, on every
 * read store: the projections below read, modify and write back (a count, a list that grows per
 * event, a document deleted and one written from another's state), the shapes a replayed batch
 * would double-apply if the store and the unit of work did not guard per document.
 */
export function projectionRedeliveryContract(adapter: string, open: () => Promise<ReadStore>): void {
  describe(`Projection redelivery contract: ${adapter}`, () => {
    const cleanups: Array<() => Promise<void> | void> = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
    });

    async function setup() {
      const run = randomUUID().slice(0, 8);
      const db: SqliteDatabase = openSqlite(join(mkdtempSync(join(tmpdir(), 'warden-redelivery-')), 'log.db'), { synchronous: 'normal' });
      const events = new SqliteEventStore(db);
      const store = await open();
      cleanups.push(async () => {
        await store.close();
        await events.close();
        db.close();
      });
      const tallies = `redelivery_${run}_tallies`;
      const totals = `redelivery_${run}_totals`;
      const projection: Projection = {
        name: `redelivery-${run}`,
        collections: [tallies, totals],
        eventTypes: ['Tallied', 'TallyDropped'],
        async apply(e, ctx) {
          const id = e.data['key'] as string;
          if (e.type === 'TallyDropped') {
            ctx.delete(tallies, id);
            return;
          }
          const doc = (await ctx.get<{ n: number; seen: number[] }>(tallies, id)) ?? { n: 0, seen: [] };
          const next = { n: doc.n + 1, seen: [...doc.seen, e.data['v'] as number] };
          ctx.put(tallies, id, next);
          // A second document computed from the first one's fresh state.
          const total = (await ctx.get<{ sum: number }>(totals, 'all')) ?? { sum: 0 };
          ctx.put(totals, 'all', { sum: total.sum + (e.data['v'] as number) });
        },
      };
      const dump = async () => ({
        tallies: await store.find(tallies, {}, { sort: [{ field: 'n', direction: 'asc' }] }),
        a: await store.get(tallies, 'a'),
        b: await store.get(tallies, 'b'),
        gone: await store.get(tallies, 'gone'),
        totals: await store.get(totals, 'all'),
      });
      return { events, store, projection, dump };
    }

    it('redelivering a batch whose writes landed without its checkpoint changes nothing', async () => {
      const { events, store, projection, dump } = await setup();
      await events.append(
        'tally-a',
        [1, 2, 3].map((v) => event('Tallied', { key: 'a', v })),
        'no_stream',
      );
      await events.append(
        'tally-b',
        [10, 20].map((v) => event('Tallied', { key: 'b', v })),
        'no_stream',
      );
      await events.append('tally-gone', [event('Tallied', { key: 'gone', v: 100 }), event('TallyDropped', { key: 'gone' })], 'no_stream');

      await expect(new ProjectionRunner(projection, events, crashingBeforeCheckpoint(store, crash)).catchUp()).rejects.toBe(crash);
      expect(await store.checkpoint(projection.name)).toBe(0);
      const once = await dump();
      expect(once.a).toEqual({ n: 3, seen: [1, 2, 3] });
      expect(once.b).toEqual({ n: 2, seen: [10, 20] });
      expect(once.gone).toBeUndefined();
      expect(once.totals).toEqual({ sum: 136 });

      // The restarted process redelivers the batch from the old checkpoint.
      await new ProjectionRunner(projection, events, store).catchUp();
      expect(await dump()).toEqual(once);
      expect(await store.checkpoint(projection.name)).toBe(await events.headPosition());
    });

    it('applies only the new events when the redelivered batch runs past the crashed one', async () => {
      const { events, store, projection, dump } = await setup();
      await events.append(
        'tally-a',
        [1, 2].map((v) => event('Tallied', { key: 'a', v })),
        'no_stream',
      );
      await expect(new ProjectionRunner(projection, events, crashingBeforeCheckpoint(store, crash)).catchUp()).rejects.toBe(crash);
      // More events arrive before the restart; the redelivered batch holds old and new together.
      await events.append(
        'tally-a',
        [3].map((v) => event('Tallied', { key: 'a', v })),
        1,
      );
      await events.append(
        'tally-b',
        [10].map((v) => event('Tallied', { key: 'b', v })),
        'no_stream',
      );

      await new ProjectionRunner(projection, events, store).catchUp();
      const after = await dump();
      expect(after.a).toEqual({ n: 3, seen: [1, 2, 3] });
      expect(after.b).toEqual({ n: 1, seen: [10] });
      expect(after.totals).toEqual({ sum: 16 });

      // A checkpoint lost altogether (moved back to 0) redelivers everything: still nothing doubled.
      await store.commit([], { projection: projection.name, from: await store.checkpoint(projection.name), to: 0 });
      await new ProjectionRunner(projection, events, store).catchUp();
      expect(await dump()).toEqual(after);
    });

    it('completes, on redelivery, the writes of a batch whose commit landed only some collections, for a projection that records each key once', async () => {
      const { events, store } = await setup();
      const run = randomUUID().slice(0, 8);
      const marks = `redelivery_${run}_marks`;
      const counts = `redelivery_${run}_counts`;
      // Counts each key once: a later event of a key already marked by an earlier one counts nothing.
      const once: Projection = {
        name: `record-once-${run}`,
        collections: [marks, counts],
        eventTypes: ['Tallied'],
        async apply(e, ctx) {
          const id = e.data['key'] as string;
          if (await ctx.writtenBefore(marks, id)) return;
          ctx.put(marks, id, { v: e.data['v'] as number });
          const count = (await ctx.get<{ n: number }>(counts, 'all')) ?? { n: 0 };
          ctx.put(counts, 'all', { n: count.n + 1 });
        },
      };
      await events.append(
        'tally-a',
        [1, 2].map((v) => event('Tallied', { key: 'a', v })),
        'no_stream',
      );
      await events.append('tally-b', [event('Tallied', { key: 'b', v: 10 })], 'no_stream');

      await expect(new ProjectionRunner(once, events, crashingPartway(store, [marks], crash)).catchUp()).rejects.toBe(crash);
      expect(await store.get(marks, 'a')).toEqual({ v: 1 });
      expect(await store.get(counts, 'all')).toBeUndefined();

      await new ProjectionRunner(once, events, store).catchUp();
      expect(await store.get(counts, 'all')).toEqual({ n: 2 });
      expect(await store.get(marks, 'a')).toEqual({ v: 1 });
      // Delivered again whole: still two keys, counted once each.
      await store.commit([], { projection: once.name, from: await store.checkpoint(once.name), to: 0 });
      await new ProjectionRunner(once, events, store).catchUp();
      expect(await store.get(counts, 'all')).toEqual({ n: 2 });
    });
  });
}
