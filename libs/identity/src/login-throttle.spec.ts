import { afterEach, describe, expect, it } from 'vitest';
import { FixedClock } from '#warden/kernel';
import { SqliteReadStore } from '#warden/readstore';
import { sqliteStores } from '../../../test/support/sqlite-stores.js';
import { FAILURE_WINDOW_MS, LoginThrottle, loginThrottleKeys, MAX_FAILURES } from './login-throttle.js';

describe('loginThrottleKeys', () => {
  it('counts an attempt against its account and its client network, holding no address in clear', () => {
    const [account, address] = loginThrottleKeys('digest-1', '203.0.113.7');
    expect(account).toBe('account:digest-1');
    expect(address).toMatch(/^address:[0-9a-f]{64}$/);
    expect(address).not.toContain('203.0.113.7');
  });

  it('counts the addresses of one IPv6 /64 as one client, and an IPv4-mapped address as its IPv4 address', () => {
    const network = (ip: string) => loginThrottleKeys('d', ip)[1];
    expect(network('2001:db8:1:2::1')).toBe(network('2001:db8:1:2:ffff:eeee:dddd:cccc'));
    expect(network('2001:db8:1:3::1')).not.toBe(network('2001:db8:1:2::1'));
    expect(network('::ffff:203.0.113.7')).toBe(network('203.0.113.7'));
    expect(network('203.0.113.8')).not.toBe(network('203.0.113.7'));
  });
});

describe('LoginThrottle, on the real embedded store shared by two processes', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  const twoProcesses = (clock: FixedClock) => {
    stores = sqliteStores();
    return [new LoginThrottle(stores.readStore, clock), new LoginThrottle(new SqliteReadStore(stores.open()), clock)] as const;
  };

  it('lets at most 10 of 40 guesses sent at once through, across processes, and refuses the rest with Retry-After', async () => {
    const clock = new FixedClock(new Date('2026-11-23T12:00:00Z'));
    const [a, b] = twoProcesses(clock);
    const keys = loginThrottleKeys('digest-1', '203.0.113.7');
    const attempts = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).begin(keys)));
    // A key too contended to be written refuses rather than let a guess through uncounted, so
    // under this burst a few fewer than 10 may pass; never more.
    const through = attempts.filter((t) => t.id !== null).length;
    expect(through).toBeGreaterThan(0);
    expect(through).toBeLessThanOrEqual(MAX_FAILURES);
    for (const t of attempts.filter((t) => t.id === null)) expect(t.retryAfter).toBeGreaterThanOrEqual(1);
    // Whatever the burst let through, the window holds exactly 10 guesses in all.
    let more = 0;
    while ((await (more % 2 === 0 ? b : a).begin(keys)).id !== null) more++;
    expect(through + more).toBe(MAX_FAILURES);
  });

  it('takes back only the attempt whose password was right, and frees the key once the window has passed', async () => {
    const clock = new FixedClock(new Date('2026-11-23T12:00:00Z'));
    const [a] = twoProcesses(clock);
    const keys = loginThrottleKeys('digest-2', '203.0.113.8');
    const right = await a.begin(keys);
    for (let i = 0; i < MAX_FAILURES - 1; i++) expect((await a.begin(keys)).id).not.toBeNull();
    // 10 counted: the next is refused until the right one is taken back, then one more fits.
    expect((await a.begin(keys)).id).toBeNull();
    await a.succeeded(keys, right.id!);
    expect((await a.begin(keys)).id).not.toBeNull();
    expect((await a.begin(keys)).id).toBeNull();
    clock.advance(FAILURE_WINDOW_MS + 1000);
    expect((await a.begin(keys)).id).not.toBeNull();
  });
});
