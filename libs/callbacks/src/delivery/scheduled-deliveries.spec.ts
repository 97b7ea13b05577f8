import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteReadStore } from '#warden/readstore';
import { CALLBACK_SCHEDULE, type CallbackScheduleDoc } from '../projections/callback-deliveries.read-model.js';
import { forEachScheduledDelivery, SCHEDULE_PAGE } from './scheduled-deliveries.js';

/** `n` scheduled deliveries, a third of them due at one same instant (a receiver that failed many at once). */
async function scheduleOf(n: number) {
  const store = new SqliteReadStore(new Database(':memory:'));
  await store.ensureIndex(CALLBACK_SCHEDULE, ['nextAttemptAt', 'deliveryId']);
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + (i % 3 === 0 ? 0 : i) * 1000).toISOString();
  await store.commit(
    Array.from({ length: n }, (_, i) => ({
      op: 'put' as const,
      collection: CALLBACK_SCHEDULE,
      id: `acme:d${i}`,
      doc: { orgId: 'acme', deliveryId: `d${i}`, nextAttemptAt: at(i), revision: 1 },
    })),
  );
  return store;
}

describe('reloading the scheduled deliveries (forEachScheduledDelivery)', () => {
  it('hands each one over once, soonest first, a page per turn of the event loop, ties at a page boundary included', async () => {
    const n = 2 * SCHEDULE_PAGE + 500;
    const store = await scheduleOf(n);
    const handed: CallbackScheduleDoc[] = [];
    const perTurn: number[] = [0];
    let ticking = true;
    const tick = () => {
      perTurn.push(0);
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const count = await forEachScheduledDelivery(store, (doc) => {
      handed.push(doc);
      perTurn[perTurn.length - 1]!++;
    });
    ticking = false;
    expect(count).toBe(n);
    expect(new Set(handed.map((d) => d.deliveryId)).size).toBe(n);
    expect(handed.map((d) => d.nextAttemptAt)).toEqual([...handed.map((d) => d.nextAttemptAt)].sort());
    // The 834 deliveries of the one instant fill most of the first page; no turn hands over more than a page.
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(SCHEDULE_PAGE);
    expect(perTurn.filter((k) => k > 0).length).toBeGreaterThanOrEqual(3);
  });

  it('goes on past more deliveries at one instant than a page holds', async () => {
    const store = new SqliteReadStore(new Database(':memory:'));
    await store.ensureIndex(CALLBACK_SCHEDULE, ['nextAttemptAt', 'deliveryId']);
    const n = SCHEDULE_PAGE * 2 + 10;
    await store.commit(
      Array.from({ length: n }, (_, i) => ({
        op: 'put' as const,
        collection: CALLBACK_SCHEDULE,
        id: `acme:d${i}`,
        doc: { orgId: 'acme', deliveryId: `d${i}`, nextAttemptAt: '2026-01-01T00:00:00.000Z', revision: 1 },
      })),
    );
    const seen = new Set<string>();
    const read: number[] = [];
    const counting = Object.assign(Object.create(store) as SqliteReadStore, {
      find: async (...args: Parameters<SqliteReadStore['find']>) => {
        const found = await store.find(...args);
        read.push(found.length);
        return found;
      },
    });
    expect(await forEachScheduledDelivery(counting, (doc) => seen.add(doc.deliveryId))).toBe(n);
    expect(seen.size).toBe(n);
    // Each delivery read once, however many share the instant: no page reads again what one before it read.
    expect(read.reduce((a, b) => a + b, 0)).toBe(n);
  });
});
