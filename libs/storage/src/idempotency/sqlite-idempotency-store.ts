import type Database from 'better-sqlite3';
import { SqliteGroupCommit } from '#warden/sqlite';
import { type Clock, systemClock } from '#warden/kernel';
import {
  type BeginOutcome,
  type BeginRequest,
  checkedBegin,
  checkedRef,
  type IdempotencyKeyRef,
  type IdempotencyStore,
  type StoredResponse,
} from '#warden/platform';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS idempotency_keys (
  scope       TEXT NOT NULL,
  key         TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  holder      TEXT,
  lease_until INTEGER,
  status      INTEGER,
  body        TEXT,
  expires_at  INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);`;

interface Row {
  fingerprint: string;
  holder: string | null;
  lease_until: number | null;
  status: number | null;
  body: string | null;
  expires_at: number;
}

/** Expired records are deleted at most this often, by whichever request comes along. */
const PURGE_EVERY_MS = 10 * 60_000;

/**
 * Idempotency records in the embedded data file, which every process on the data directory
 * opens: a reservation looks the key up and takes it in one IMMEDIATE transaction, so two
 * processes cannot both find a key free. Times are this host's clock, which all those processes
 * share.
 *
 * Every request with an Idempotency-Key writes here, so writes go through a group commit that
 * waits for another process's write lock without blocking the event loop (SqliteGroupCommit).
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly clock: Clock;
  private readonly writes: SqliteGroupCommit;
  private readonly get: Database.Statement<[string, string], Row>;
  private readonly take: Database.Statement<[string, string, string, string, number, number]>;
  private readonly store: Database.Statement<[number, string | null, string, string, string]>;
  private readonly drop: Database.Statement<[string, string, string]>;
  private readonly purge: Database.Statement<[number]>;
  private nextPurgeAt = 0;

  constructor(db: Database.Database, options: { clock?: Clock } = {}) {
    db.exec(SCHEMA);
    this.clock = options.clock ?? systemClock;
    this.writes = new SqliteGroupCommit(db);
    this.get = db.prepare('SELECT fingerprint, holder, lease_until, status, body, expires_at FROM idempotency_keys WHERE scope = ? AND key = ?');
    this.take = db.prepare(
      `INSERT INTO idempotency_keys (scope, key, fingerprint, holder, lease_until, status, body, expires_at)
       VALUES (?, ?, ?, ?, ?, NULL, NULL, ?)
       ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, holder = excluded.holder,
         lease_until = excluded.lease_until, status = NULL, body = NULL, expires_at = excluded.expires_at`,
    );
    this.store = db.prepare('UPDATE idempotency_keys SET status = ?, body = ?, holder = NULL, lease_until = NULL WHERE scope = ? AND key = ? AND holder = ?');
    this.drop = db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND holder = ?');
    this.purge = db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');
    this.purgeSoon();
  }

  async begin(request: BeginRequest): Promise<BeginOutcome> {
    checkedBegin(request);
    if (this.clock.now().getTime() >= this.nextPurgeAt) this.purgeSoon();
    // A key that is taken needs no write: a WAL read never waits for the lock, so a replay or
    // a refusal is answered at once. A key that looks free is looked up again under the lock.
    const taken = this.decide(request, this.get.get(request.scope, request.key));
    if (taken) return taken;
    return this.writes.run(() => this.decide(request, this.get.get(request.scope, request.key)) ?? this.reserve(request));
  }

  async complete(ref: IdempotencyKeyRef, holder: string, response: StoredResponse): Promise<boolean> {
    checkedRef(ref);
    return this.writes.run(() => this.store.run(response.status, response.body, ref.scope, ref.key, holder).changes === 1);
  }

  async release(ref: IdempotencyKeyRef, holder: string): Promise<void> {
    checkedRef(ref);
    await this.writes.run(() => this.drop.run(ref.scope, ref.key, holder));
  }

  async purgeExpired(): Promise<number> {
    this.nextPurgeAt = this.clock.now().getTime() + PURGE_EVERY_MS;
    return this.writes.run(() => this.purge.run(this.clock.now().getTime()).changes);
  }

  /** Runs what is still queued; the connection may be closed afterwards. */
  async close(): Promise<void> {
    this.writes.close();
  }

  /** The outcome for a key that is taken, or undefined when the request may reserve it. */
  private decide(r: BeginRequest, row: Row | undefined): BeginOutcome | undefined {
    const now = this.clock.now().getTime();
    const free = !row || row.expires_at <= now || (row.status === null && (row.lease_until ?? 0) <= now);
    if (free) return undefined;
    if (row.fingerprint !== r.fingerprint) return { outcome: 'mismatch' };
    if (row.status === null) return { outcome: 'in-progress' };
    return { outcome: 'replay', response: { status: row.status, body: row.body } };
  }

  private reserve(r: BeginRequest): BeginOutcome {
    const now = this.clock.now().getTime();
    this.take.run(r.scope, r.key, r.fingerprint, r.holder, now + r.leaseMs, now + r.retentionMs);
    return { outcome: 'reserved' };
  }

  /** Best effort: a purge that fails (the lock stayed busy) is tried again at the next one's time. */
  private purgeSoon(): void {
    void this.purgeExpired().catch(() => undefined);
  }
}
