import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteReadStore } from '#warden/readstore';
import { CALLBACK_DELIVERIES } from '../../projections/callback-deliveries.read-model.js';
import { ListDeliveriesHandler } from './list-deliveries.handler.js';
import { LISTED_DELIVERIES, ListDeliveriesQuery } from './list-deliveries.query.js';

/** A read store with `n` delivered deliveries of acme, a second apart, and 3 failed ones. */
async function storeWith(n: number) {
  const store = new SqliteReadStore(new Database(':memory:'));
  await store.ensureIndex(CALLBACK_DELIVERIES, ['orgId', 'requestedAt']);
  await store.ensureIndex(CALLBACK_DELIVERIES, ['orgId', 'status', 'requestedAt']);
  const doc = (i: number, status: string) => ({
    op: 'put' as const,
    collection: CALLBACK_DELIVERIES,
    id: `d${i}`,
    doc: { orgId: 'acme', deliveryId: `d${i}`, status, requestedAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString() },
  });
  await store.commit([...Array.from({ length: n }, (_, i) => doc(i, 'delivered')), ...[0, 1, 2].map((i) => doc(n + i, 'failed'))]);
  return store;
}

describe('the callback deliveries list (ListDeliveriesHandler)', () => {
  it('counts up to 10,000, says when there are more, and offers no next page past the newest 10,000', async () => {
    const store = await storeWith(LISTED_DELIVERIES + 50);
    let counted: unknown[] = [];
    const counting = Object.assign(Object.create(store) as SqliteReadStore, {
      count: (...args: Parameters<SqliteReadStore['count']>) => ((counted = args), store.count(...args)),
    });
    const handler = new ListDeliveriesHandler(counting);

    const first = await handler.execute(new ListDeliveriesQuery('acme', undefined, 50, 0));
    expect(first).toMatchObject({ total: LISTED_DELIVERIES, totalExact: false, offset: 0, nextOffset: 50 });
    expect(first.deliveries.map((d) => d.deliveryId).slice(0, 4)).toEqual(['d10052', 'd10051', 'd10050', 'd10049']);
    // Never a count of them all.
    expect(counted[2]).toEqual({ limit: LISTED_DELIVERIES + 1 });

    // The page that reaches the 10,000th: the API takes no offset past it, so none is offered.
    const last = await handler.execute(new ListDeliveriesQuery('acme', undefined, 50, LISTED_DELIVERIES - 10));
    expect(last.deliveries).toHaveLength(50);
    expect(last.nextOffset).toBeNull();
    // The CLI's query pages on.
    expect((await handler.execute(new ListDeliveriesQuery('acme', undefined, 50, LISTED_DELIVERIES - 10, Number.MAX_SAFE_INTEGER))).nextOffset).toBe(
      LISTED_DELIVERIES + 40,
    );

    // Fewer than the limit: exact, and the last page says so.
    const failed = await handler.execute(new ListDeliveriesQuery('acme', 'failed', 2, 0));
    expect(failed).toMatchObject({ total: 3, totalExact: true, nextOffset: 2 });
    expect(await handler.execute(new ListDeliveriesQuery('acme', 'failed', 2, 2))).toMatchObject({ total: 3, totalExact: true, nextOffset: null });
    expect(await handler.execute(new ListDeliveriesQuery('acme', 'failed', 3, 0))).toMatchObject({ nextOffset: null });
  });
});
