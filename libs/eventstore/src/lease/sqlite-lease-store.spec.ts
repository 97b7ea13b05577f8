import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support/wait-for.js';
import { openSqlite, type SqliteDatabase } from '../sqlite/sqlite-database.js';
import { holderIsGone, processHolderId } from './holder-id.js';
import { SqliteLeaseStore } from './sqlite-lease-store.js';

/** Two processes on one data file: two connections, one shared clock the test moves. */
function twoHolders() {
  const file = join(mkdtempSync(join(tmpdir(), 'warden-lease-')), 'warden.db');
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = { now: () => new Date(now) };
  const dbs: SqliteDatabase[] = [openSqlite(file), openSqlite(file)];
  const never = () => false;
  const a = new SqliteLeaseStore(dbs[0]!, { clock, holderIsGone: never });
  const b = new SqliteLeaseStore(dbs[1]!, { clock, holderIsGone: never });
  return {
    a,
    b,
    advance: (ms: number) => (now += ms),
    /** Another process's connection to the same file. */
    other: () => {
      const db = openSqlite(file);
      dbs.push(db);
      return db;
    },
    close: async () => {
      await Promise.all([a.close(), b.close()]);
      dbs.forEach((db) => db.close());
    },
  };
}

describe('SqliteLeaseStore', () => {
  let stores: ReturnType<typeof twoHolders> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  it('lets one holder at a time have a lease, and the other take it over only after expiry', async () => {
    stores = twoHolders();
    const { a, b, advance } = stores;
    expect(await a.acquire('rules-evaluation', 'worker-a', 10_000)).toBe(true);
    expect(await b.acquire('rules-evaluation', 'worker-b', 10_000)).toBe(false);
    // Another lease is independent.
    expect(await b.acquire('callbacks-delivery', 'worker-b', 10_000)).toBe(true);
    advance(9_999);
    expect(await b.acquire('rules-evaluation', 'worker-b', 10_000)).toBe(false);
    advance(1);
    expect(await b.acquire('rules-evaluation', 'worker-b', 10_000)).toBe(true);
    expect(await a.inspect('rules-evaluation')).toMatchObject({ holder: 'worker-b' });
  });

  it('renews only for the holder, and refuses a renewal after the lease was lost', async () => {
    stores = twoHolders();
    const { a, b, advance } = stores;
    expect(await a.acquire('r', 'worker-a', 10_000)).toBe(true);
    advance(8_000);
    expect(await a.renew('r', 'worker-a', 10_000)).toBe(true);
    expect(await b.renew('r', 'worker-b', 10_000)).toBe(false);
    advance(8_000);
    // Renewed at 8 s for 10 s: still a's at 16 s.
    expect(await b.acquire('r', 'worker-b', 10_000)).toBe(false);
    advance(2_000);
    // Expired: a renewal is refused even though nobody has taken it yet.
    expect(await a.renew('r', 'worker-a', 10_000)).toBe(false);
    expect(await b.acquire('r', 'worker-b', 10_000)).toBe(true);
    expect(await a.renew('r', 'worker-a', 10_000)).toBe(false);
    expect(await a.acquire('r', 'worker-a', 10_000)).toBe(false);
  });

  it('hands a released lease to the standby at once; releasing a lease one does not hold changes nothing', async () => {
    stores = twoHolders();
    const { a, b } = stores;
    expect(await a.acquire('r', 'worker-a', 10_000)).toBe(true);
    await b.release('r', 'worker-b');
    expect(await b.acquire('r', 'worker-b', 10_000)).toBe(false);
    await a.release('r', 'worker-a');
    expect(await b.acquire('r', 'worker-b', 10_000)).toBe(true);
    expect(await a.renew('r', 'worker-a', 10_000)).toBe(false);
  });

  it('waits for the write lock held by another process without blocking the event loop, then renews', async () => {
    stores = twoHolders();
    const { a, b, other } = stores;
    expect(await a.acquire('r', 'worker-a', 10_000)).toBe(true);
    const writer = other();
    writer.exec('BEGIN IMMEDIATE');
    const settled: string[] = [];
    const renewed = a.renew('r', 'worker-a', 10_000);
    const taken = b.acquire('r', 'worker-b', 10_000);
    void renewed.finally(() => settled.push('renew')).catch(() => undefined);
    void taken.finally(() => settled.push('acquire')).catch(() => undefined);
    // SQLite's busy handler would hold the whole process here until its timeout, then fail.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await waitFor(() => ticks >= 3, 'a timer to tick while the write lock is held elsewhere').finally(() => clearInterval(timer));
    expect(settled).toEqual([]);
    writer.exec('COMMIT');
    expect(await renewed).toBe(true);
    expect(await taken).toBe(false);
    expect(await b.inspect('r')).toMatchObject({ holder: 'worker-a' });
  });

  it('refuses names and holders that are not plain keys', async () => {
    stores = twoHolders();
    await expect(stores.a.acquire("x'; DROP TABLE leases", 'h', 1000)).rejects.toThrow('Invalid lease name');
    await expect(stores.a.acquire('r', '', 1000)).rejects.toThrow('Invalid lease holder');
  });

  it("takes a dead process's lease before expiry, never a running one's", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-lease-')), 'warden.db');
    const db = openSqlite(file);
    try {
      const store = new SqliteLeaseStore(db);
      // A real process that has exited: its pid no longer runs.
      const exited = spawnSync(process.execPath, ['-e', '0']).pid;
      const dead = processHolderId().replace(/\/\d+\//, `/${exited}/`);
      expect(holderIsGone(dead)).toBe(true);
      expect(await store.acquire('r', dead, 60_000)).toBe(true);
      expect(await store.acquire('r', 'worker-b', 60_000)).toBe(true);
      // This test process is alive: its lease stays until expiry.
      const alive = processHolderId();
      const other = processHolderId();
      const parent = other.replace(/\/\d+\//, `/${process.ppid}/`);
      expect(holderIsGone(parent)).toBe(false);
      expect(await store.acquire('s', parent, 60_000)).toBe(true);
      expect(await store.acquire('s', alive, 60_000)).toBe(false);
      // A holder from another host is never presumed dead.
      expect(holderIsGone(`elsewhere/${exited}/abc`)).toBe(false);
    } finally {
      db.close();
    }
  });
});
