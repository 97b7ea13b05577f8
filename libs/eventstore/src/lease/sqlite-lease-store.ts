import { type Clock, systemClock } from '#warden/kernel';
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
 * Leases in the embedded data file. Each change runs in an IMMEDIATE transaction, so the read of
 * the current holder and the write that follows cannot interleave with another process's.
 */
export class SqliteLeaseStore implements LeaseStore {
  private readonly clock: Clock;
  private readonly gone: (holder: string) => boolean;
  private readonly take: (name: string, holder: string, ttlMs: number) => boolean;
  private readonly extend: (name: string, holder: string, ttlMs: number) => boolean;
  private readonly drop: (name: string, holder: string) => void;
  private readonly read;

  constructor(db: SqliteDatabase, options: SqliteLeaseStoreOptions = {}) {
    db.exec(SCHEMA);
    this.clock = options.clock ?? systemClock;
    this.gone = options.holderIsGone ?? holderIsGone;
    const get = db.prepare<[string], Row>('SELECT holder, expires_at FROM leases WHERE name = ?');
    const upsert = db.prepare<[string, string, number]>(
      'INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at',
    );
    const remove = db.prepare<[string, string]>('DELETE FROM leases WHERE name = ? AND holder = ?');
    this.read = get;
    this.take = db.transaction((name: string, holder: string, ttlMs: number) => {
      const now = this.clock.now().getTime();
      const row = get.get(name);
      if (row && row.holder !== holder && row.expires_at > now && !this.gone(row.holder)) return false;
      upsert.run(name, holder, now + ttlMs);
      return true;
    }).immediate;
    this.extend = db.transaction((name: string, holder: string, ttlMs: number) => {
      const now = this.clock.now().getTime();
      const row = get.get(name);
      if (!row || row.holder !== holder || row.expires_at <= now) return false;
      upsert.run(name, holder, now + ttlMs);
      return true;
    }).immediate;
    this.drop = db.transaction((name: string, holder: string) => {
      remove.run(name, holder);
    }).immediate;
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    assertLeaseKey('name', name);
    assertLeaseKey('holder', holder);
    return this.take(name, holder, ttlMs);
  }

  async renew(name: string, holder: string, ttlMs: number): Promise<boolean> {
    assertLeaseKey('name', name);
    assertLeaseKey('holder', holder);
    return this.extend(name, holder, ttlMs);
  }

  async release(name: string, holder: string): Promise<void> {
    assertLeaseKey('name', name);
    assertLeaseKey('holder', holder);
    this.drop(name, holder);
  }

  async inspect(name: string): Promise<{ holder: string; expiresAt: number } | undefined> {
    const row = this.read.get(name);
    return row ? { holder: row.holder, expiresAt: row.expires_at } : undefined;
  }
}
