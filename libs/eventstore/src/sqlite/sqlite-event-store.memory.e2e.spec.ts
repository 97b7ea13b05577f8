import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import type { Subscription } from '../event-store.port.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap after a full collection, in bytes. */
function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('embedded log subscriptions', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  const subscriptions: Subscription[] = [];
  afterEach(async () => {
    for (const s of subscriptions.splice(0)) await s.stop();
    await stores?.close();
  });

  it('keep no memory per wait: the heap does not grow with the commits they wake up for', async () => {
    stores = sqliteStores();
    const events = stores.events;
    let seen = 0;
    for (let i = 0; i < 4; i++) {
      subscriptions.push(events.subscribeToAll({ after: 0, onEvents: async (batch) => void (seen += batch.length) }));
    }
    const waitSeen = async (target: number) => {
      while (seen < target) await new Promise((r) => setImmediate(r));
    };
    // Fill the caches first (the log's tail keeps 8,192 events, the decoded ones 4,096), in a few
    // large appends: what the heap gains after that is per wait.
    for (let b = 0; b < 10; b++) {
      await events.append(
        `warm-${b}`,
        Array.from({ length: 1_000 }, (_, i) => anEvent('Noted', { i })),
        'no_stream',
      );
    }
    await waitSeen(4 * 10_000);
    const before = heapAfterGc();
    // One event per commit: every subscription woken and back to waiting before the next.
    for (let i = 0; i < 2_000; i++) {
      await events.append(`s-${i}`, [anEvent('Noted', { i })], 'no_stream');
      await waitSeen(4 * (10_000 + i + 1));
    }
    const grown = heapAfterGc() - before;
    // 8,000 waits: at 150 bytes each, a reaction kept per wait until the store closes would be 1.2 MB.
    expect(grown).toBeLessThan(400_000);
  }, 120_000);
});
