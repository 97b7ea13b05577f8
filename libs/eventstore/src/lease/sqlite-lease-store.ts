import { type Clock, systemClock } from '#warden/kernel';
import { SqliteGroupCommit } from '#warden/sqlite';
import type { SqliteDatabase } from '../sqlite/sqlite-database.js';
import { holderIsGone } from './holder-id.js';
import { assertLeaseKey, type LeaseStore } from './lease-store.port.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS leases (
  name       TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);`;

interface Row {
  holder: string;
  expires_at: number;
}

export interface SqliteLeaseStoreOptions {
  readonly clock?: Clock;
  /** Whether a holder is known to be dead (its lease may go before expiry); default: same-host pid check. */
  readonly holderIsGone?: (holder: string) => boolean;
}

/**
 * Leases in the embedded data file. Each change runs in a transaction of its own savepoint, so the
 * read of the current holder and the write that follows cannot interleave with another process's.
 * A change waits for another process's write lock without blocking the event loop
 * (SqliteGroupCommit): a renewal must not stall the work the lease guards.
 */
export class SqliteLeaseStore implements LeaseStore {
  private readonly clock: Clock;
  private readonly gone: (holder: string) => boolean;
  private readonly writes: SqliteGroupCommit;
  private readonly stmt;

  constructor(db: SqliteDatabase, options: SqliteLeaseStoreOptions = {}) {
    db.exec(SCHEMA);
    this.clock = options.clock ?? systemClock;
    this.gone = options.holderIsGone ?? holderIsGone;
    this.writes = new SqliteGroupCommit(db);
    this.stmt = {
      get: db.prepare<[string], Row>('SELECT holder, expires_at FROM leases WHERE name = ?'),
      upsert: db.prepare<[string, string, number]>(
        'INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at',
      ),
      remove: db.prepare<[string, string]>('DELETE FROM leases WHERE name = ? AND holder = ?'),
    };
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    assertLeaseKey('name', name);
    assertLeaseKey('holder', holder);
    // The clock is read under the lock: expiry is judged when the change commits, not when it queued.
    return this.writes.run(() => {
      const now = this.clock.now().getTime();
      const row = this.stmt.get.get(name);
      if (row && row.holder !== holder && row.expires_at > now && !this.gone(row.holder)) return false;
      this.stmt.upsert.run(name, holder, now + ttlMs);
      return true;
    });
  }

  async renew(name: string, holder: string, ttlMs: number): Promise<boolean> {
    assertLeaseKey('name', name);
    assertLeaseKey('holder', holder);
    return this.writes.run(() => {
      const now = this.clock.now().getTime();
      const row = this.stmt.get.get(name);
      if (!row || row.holder !== holder || row.expires_at <= now) return false;
      this.stmt.upsert.run(name, holder, now + ttlMs);
      return true;
    });
  }

  async release(name: string, holder: string): Promise<void> {
    assertLeaseKey('name', name);
    assertLeaseKey('holder', holder);
    await this.writes.run(() => {
      this.stmt.remove.run(name, holder);
    });
  }

  async inspect(name: string): Promise<{ holder: string; expiresAt: number } | undefined> {
    const row = this.stmt.get.get(name);
    return row ? { holder: row.holder, expiresAt: row.expires_at } : undefined;
  }

  /** Finishes the changes still queued behind another process's lock; call before the connection closes. */
  async close(): Promise<void> {
    this.writes.close();
  }
}
