import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RateLimit, RateLimitStore } from '#warden/platform';

/** A refill so slow that no token comes back while a test runs. */
const NO_REFILL = 0.001;

/**
 * The behaviour every RateLimitStore adapter shows. `open` gives a store as one api instance
 * would have it; calling it twice gives two instances (sharing a backend where the adapter can).
 */
export function rateLimitStoreContract(adapter: string, open: (limit: RateLimit) => Promise<RateLimitStore>): void {
  describe(`RateLimitStore contract: ${adapter}`, () => {
    const key = () => `key:${randomUUID()}`;

    it('allows the burst, then refuses with a wait in whole seconds until the next token', async () => {
      const store = await open({ ratePerSecond: NO_REFILL, burst: 3 });
      const k = key();
      expect([await store.take(k), await store.take(k), await store.take(k)]).toEqual([0, 0, 0]);
      const wait = await store.take(k);
      expect(Number.isInteger(wait)).toBe(true);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(1 / NO_REFILL);
      expect(await store.take(k)).toBeGreaterThan(0);
    });

    it('takes several tokens at once, all or none, and waits until that many are there', async () => {
      const store = await open({ ratePerSecond: NO_REFILL, burst: 5 });
      const k = key();
      expect(await store.take(k, 3)).toBe(0);
      const wait = await store.take(k, 3);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(Math.ceil(1 / NO_REFILL));
      // The refused take took nothing: two are still there.
      expect([await store.take(k, 2), await store.take(k)]).toEqual([0, expect.any(Number)]);
      // More than the burst costs the burst: a full bucket pays it.
      expect(await store.take(key(), 50)).toBe(0);
      await expect(store.take(key(), 0)).rejects.toThrow(RangeError);
    });

    it('keeps one bucket per key', async () => {
      const store = await open({ ratePerSecond: NO_REFILL, burst: 1 });
      const [a, b] = [key(), key()];
      expect(await store.take(a)).toBe(0);
      expect(await store.take(a)).toBeGreaterThan(0);
      expect(await store.take(b)).toBe(0);
    });

    it('refills at the sustained rate', async () => {
      const store = await open({ ratePerSecond: 5, burst: 1 });
      const k = key();
      let refused = false;
      for (let i = 0; i < 50 && !refused; i++) refused = (await store.take(k)) > 0;
      expect(refused).toBe(true);
      const deadline = Date.now() + 10_000;
      while ((await store.take(k)) !== 0) {
        if (Date.now() > deadline) throw new Error('the bucket never refilled');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });

    it('never hands out more than the burst to concurrent requests', async () => {
      const store = await open({ ratePerSecond: NO_REFILL, burst: 5 });
      const k = key();
      const waits = await Promise.all(Array.from({ length: 20 }, () => store.take(k)));
      expect(waits.filter((w) => w === 0)).toHaveLength(5);
    });

    it('keeps two limits apart on one backend: requests per key and failed authentications per address', async () => {
      const requests = await open({ ratePerSecond: NO_REFILL, burst: 3 });
      const failures = await open({ ratePerSecond: NO_REFILL, burst: 1 });
      // Each collection is this run's own, so fixed addresses start with full buckets.
      const [perKey, perAddress, perIpv6Address] = [key(), 'auth-failures:203.0.113.7', 'auth-failures:2001:db8::1'];
      expect(await failures.take(perAddress)).toBe(0);
      expect(await failures.take(perAddress)).toBeGreaterThan(0);
      expect([await requests.take(perKey), await requests.take(perKey), await requests.take(perKey)]).toEqual([0, 0, 0]);
      expect(await requests.take(perKey)).toBeGreaterThan(0);
      expect(await failures.take(perIpv6Address)).toBe(0);
    });

    it('refuses keys that the HTTP layer would never build', async () => {
      const store = await open({ ratePerSecond: NO_REFILL, burst: 1 });
      for (const bad of ['', 'key:{"$gt":""}', 'x'.repeat(201), 'key:a b']) await expect(store.take(bad)).rejects.toThrow();
    });

    it('shares one bucket per key between instances exactly when the adapter says so', async () => {
      const limit = { ratePerSecond: NO_REFILL, burst: 4 };
      const [first, second] = [await open(limit), await open(limit)];
      expect(second.sharedAcrossInstances).toBe(first.sharedAcrossInstances);
      const k = key();
      const waits = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? first : second).take(k)));
      const allowed = waits.filter((w) => w === 0).length;
      // Shared: 4 across both instances. Per instance: 3 each (6 requests, burst 4 apiece).
      expect(allowed).toBe(first.sharedAcrossInstances ? 4 : 6);
    });
  });
}
