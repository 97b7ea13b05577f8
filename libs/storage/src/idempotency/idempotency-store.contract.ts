import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BeginRequest, IdempotencyStore } from '#warden/platform';

const DAY = 24 * 3600_000;
const deadline = () => Date.now() + 10_000;
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

/**
 * The behaviour every IdempotencyStore adapter shows. `open` gives a store as one process would
 * have it; calling it twice gives two processes sharing one backend.
 */
/** A first request's reservation under a fresh key (a 60 s lease, kept a day). */
export const beginRequest = (overrides: Partial<BeginRequest> = {}): BeginRequest => ({
  scope: 'acme',
  key: randomUUID(),
  fingerprint: 'fp-1',
  holder: randomUUID(),
  leaseMs: 60_000,
  retentionMs: DAY,
  ...overrides,
});

export function idempotencyStoreContract(adapter: string, open: () => Promise<IdempotencyStore>): void {
  describe(`IdempotencyStore contract: ${adapter}`, () => {
    const request = beginRequest;
    const response = { status: 202, body: '{"accepted":1,"requestId":"r-1"}' };

    it("reserves a new key, then answers the same request with the first one's response", async () => {
      const store = await open();
      const first = request();
      expect(await store.begin(first)).toEqual({ outcome: 'reserved' });
      expect(await store.complete(first, first.holder, response)).toBe(true);
      const again = { ...first, holder: randomUUID() };
      expect(await store.begin(again)).toEqual({ outcome: 'replay', response });
      expect(await store.begin(again)).toEqual({ outcome: 'replay', response });
    });

    it('keeps a response without a body', async () => {
      const store = await open();
      const first = request();
      await store.begin(first);
      await store.complete(first, first.holder, { status: 204, body: null });
      expect(await store.begin({ ...first, holder: randomUUID() })).toEqual({ outcome: 'replay', response: { status: 204, body: null } });
    });

    it('refuses the key for another request, whether the first is done or still running', async () => {
      const store = await open();
      const running = request();
      await store.begin(running);
      expect(await store.begin({ ...running, holder: randomUUID(), fingerprint: 'fp-2' })).toEqual({ outcome: 'mismatch' });
      expect(await store.begin({ ...running, holder: randomUUID() })).toEqual({ outcome: 'in-progress' });
      await store.complete(running, running.holder, response);
      expect(await store.begin({ ...running, holder: randomUUID(), fingerprint: 'fp-2' })).toEqual({ outcome: 'mismatch' });
    });

    it('scopes keys: the same key in another scope is another record', async () => {
      const store = await open();
      const first = request();
      await store.begin(first);
      await store.complete(first, first.holder, response);
      expect(await store.begin({ ...first, scope: 'globex', holder: randomUUID(), fingerprint: 'fp-2' })).toEqual({ outcome: 'reserved' });
    });

    it('lets exactly one of many concurrent first requests, across two processes, reserve the key', async () => {
      const [a, b] = [await open(), await open()];
      const base = request();
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).begin({ ...base, holder: randomUUID() })));
      expect(outcomes.filter((o) => o.outcome === 'reserved')).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === 'in-progress')).toHaveLength(9);
    });

    it("shares records between processes: one process's response is replayed by another", async () => {
      const [a, b] = [await open(), await open()];
      const first = request();
      await a.begin(first);
      await a.complete(first, first.holder, response);
      expect(await b.begin({ ...first, holder: randomUUID() })).toEqual({ outcome: 'replay', response });
    });

    it('frees a released reservation at once, for the same or another request', async () => {
      const store = await open();
      const first = request();
      await store.begin(first);
      await store.release(first, first.holder);
      const retry = { ...first, holder: randomUUID(), fingerprint: 'fp-2' };
      expect(await store.begin(retry)).toEqual({ outcome: 'reserved' });
      // Only the holder releases or completes: the first request's late calls change nothing.
      await store.release(first, first.holder);
      expect(await store.complete(first, first.holder, response)).toBe(false);
      expect(await store.begin({ ...retry, holder: randomUUID() })).toEqual({ outcome: 'in-progress' });
    });

    it('lets another request take over a reservation whose lease ran out (its holder crashed)', async () => {
      const store = await open();
      // A lease that runs out at once: the test waits for the state, never for a time. That a
      // live lease holds is shown above (a 60 s lease, in-progress).
      const crashed = request({ leaseMs: 1 });
      await store.begin(crashed);
      const retry = { ...crashed, holder: randomUUID(), leaseMs: 60_000 };
      const end = deadline();
      let outcome = await store.begin(retry);
      while (outcome.outcome !== 'reserved') {
        expect(outcome).toEqual({ outcome: 'in-progress' });
        if (Date.now() > end) throw new Error('the lease never ran out');
        await pause();
        outcome = await store.begin(retry);
      }
      expect(await store.complete(crashed, crashed.holder, response)).toBe(false);
      expect(await store.complete(retry, retry.holder, response)).toBe(true);
    });

    it('forgets a record once it expires, and purges it', async () => {
      const store = await open();
      const first = request({ retentionMs: 200 });
      await store.begin(first);
      await store.complete(first, first.holder, response);
      const end = deadline();
      while ((await store.purgeExpired()) === 0) {
        if (Date.now() > end) throw new Error('the record never expired');
        await pause();
      }
      expect(await store.begin({ ...first, holder: randomUUID(), fingerprint: 'fp-2' })).toEqual({ outcome: 'reserved' });
    });

    it('refuses keys and scopes that the HTTP layer would never build', async () => {
      const store = await open();
      for (const bad of ['', 'a b', 'x'.repeat(256), 'é']) {
        await expect(store.begin(request({ key: bad }))).rejects.toThrow();
        await expect(store.begin(request({ scope: bad }))).rejects.toThrow();
      }
    });
  });
}
