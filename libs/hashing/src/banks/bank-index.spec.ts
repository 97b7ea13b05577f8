import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import type { EventStore, SubscribeOptions, Subscription } from '#warden/eventstore';
import { PdqIndex } from '../domain/hash-index.js';
import { BankIndex } from './bank-index.js';

const MD5 = 'd41d8cd98f00b204e9800998ecf8427e';
const OTHER_MD5 = '0cc175b9c0f1b6a831c399e269772661';

/**
 * The real embedded log, except that the first `failures` subscriptions drop at once (the
 * narrowest seam: the subscription itself, as when a server connection breaks).
 */
function droppingSubscriptions(inner: EventStore, failures: number): EventStore & { subscribed: number } {
  const store = Object.create(inner) as EventStore & { subscribed: number };
  store.subscribed = 0;
  store.subscribeToAll = (options: SubscribeOptions): Subscription => {
    store.subscribed++;
    if (store.subscribed <= failures) {
      setImmediate(() => options.onError?.(new Error('connection reset')));
      return { stop: async () => undefined };
    }
    return inner.subscribeToAll(options);
  };
  return store;
}

describe('BankIndex', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  let index: BankIndex | undefined;
  afterEach(async () => {
    await index?.onApplicationShutdown();
    await stores?.close();
  });

  it('re-subscribes after a dropped subscription, and ready() then resolves with every hash', async () => {
    stores = sqliteStores();
    await stores.events.append('hash_bank-acme:b1', [anEvent('HashBankHashesAdded', { bankId: 'b1', hashes: [MD5] })], 'no_stream');
    const events = droppingSubscriptions(stores.events, 1);
    index = new BankIndex(events, { retryDelayMs: 10, readyTimeoutMs: 10_000 });
    await index.ready();
    expect(events.subscribed).toBe(2);
    expect(index.exactMatches('acme', ['b1'], MD5)).toEqual(['b1']);
    // Still live after the re-subscription.
    await stores.events.append('hash_bank-acme:b1', [anEvent('HashBankHashesAdded', { bankId: 'b1', hashes: [OTHER_MD5] })], 0);
    const started = Date.now();
    while (index.size('acme', 'b1') < 2 && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 10));
    expect(index.exactMatches('acme', ['b1'], OTHER_MD5)).toEqual(['b1']);
  });

  it('removes a chunk of hashes in one pass over the bank, whatever its size: what remains still matches', async () => {
    stores = sqliteStores();
    const hashes = Array.from({ length: 2_000 }, (_, i) => createHash('sha256').update(String(i)).digest('hex'));
    await stores.events.append('hash_bank-acme:b2', [anEvent('HashBankHashesAdded', { bankId: 'b2', hashes })], 'no_stream');
    index = new BankIndex(stores.events, { retryDelayMs: 10, readyTimeoutMs: 10_000 });
    await index.ready();
    const passes = vi.spyOn(PdqIndex.prototype, 'removeWhere');
    try {
      await stores.events.append('hash_bank-acme:b2', [anEvent('HashBankHashesRemoved', { bankId: 'b2', hashes: hashes.slice(0, 1_000) })], 0);
      await waitFor(() => index!.size('acme', 'b2') === 1_000, 'the removal applied');
      expect(passes).toHaveBeenCalledTimes(1);
    } finally {
      passes.mockRestore();
    }
    expect(index.nearestPdq('acme', ['b2'], hashes[0]!, 0)).toBeUndefined();
    expect(index.nearestPdq('acme', ['b2'], hashes[1_500]!, 0)).toEqual({ bankId: 'b2', hash: hashes[1_500], distance: 0 });
  });

  it('fails ready() with a clear error instead of hanging when the log cannot be followed', async () => {
    stores = sqliteStores();
    index = new BankIndex(droppingSubscriptions(stores.events, Number.MAX_SAFE_INTEGER), { retryDelayMs: 10, readyTimeoutMs: 300 });
    await expect(index.ready()).rejects.toThrow(
      /Hash banks not loaded within 300 ms; the event store subscription failed \d+ time\(s\), last: Error: connection reset/,
    );
  });
});
