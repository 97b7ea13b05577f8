import { randomUUIDv7 } from 'node:crypto';
import { pooledRandomBytes } from '#warden/kernel';
import type { SqliteDatabase } from '../sqlite/sqlite-database.js';
import { emptyWal, SqliteGroupCommit } from '#warden/sqlite';
import type { SubjectKey, SubjectKeyStore } from './subject-key-store.port.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS subject_keys (
  key_id     TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  key        BLOB NOT NULL,
  UNIQUE (org_id, subject_id)
);
CREATE TABLE IF NOT EXISTS subject_key_erasures (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  count INTEGER NOT NULL
);`;

type LookedUp = { readonly row: { key_id: string; key: Buffer } | undefined } | { readonly error: unknown };

interface PendingLookup {
  readonly orgId: string;
  readonly subjectId: string;
  readonly resolve: (key: SubjectKey) => void;
  readonly reject: (error: unknown) => void;
}

export class SqliteSubjectKeyStore implements SubjectKeyStore {
  private readonly stmt;
  private readonly writes: SqliteGroupCommit;
  private lookups: PendingLookup[] = [];
  /** The erasure count read in this turn of the event loop (erasures()). */
  private erasuresThisTurn: Promise<number> | undefined;
  /** lookUpEach in one read transaction. */
  private readonly lookUpTogether: (batch: readonly PendingLookup[]) => LookedUp[];

  constructor(private readonly db: SqliteDatabase) {
    // A forgotten key's bytes must not survive in the file: this connection zeroes what it
    // deletes (every write to the key table goes through it), so no free page or cell keeps them.
    db.pragma('secure_delete = ON');
    db.exec(SCHEMA);
    this.writes = new SqliteGroupCommit(db);
    this.lookUpTogether = db.transaction((batch: readonly PendingLookup[]) => this.lookUpEach(batch));
    this.stmt = {
      bySubject: db.prepare<[string, string], { key_id: string; key: Buffer }>('SELECT key_id, key FROM subject_keys WHERE org_id = ? AND subject_id = ?'),
      // OR IGNORE: two processes creating the same subject's key at once both end with the winner's.
      insert: db.prepare('INSERT OR IGNORE INTO subject_keys (key_id, org_id, subject_id, key) VALUES (?, ?, ?, ?)'),
      byIds: db.prepare<[string], { key_id: string; key: Buffer }>('SELECT key_id, key FROM subject_keys WHERE key_id IN (SELECT value FROM json_each(?))'),
      forget: db.prepare('DELETE FROM subject_keys WHERE org_id = ? AND subject_id = ?'),
      counted: db.prepare('INSERT INTO subject_key_erasures (id, count) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET count = count + 1'),
      erasures: db.prepare<[], { count: number }>('SELECT count FROM subject_key_erasures WHERE id = 1'),
    };
  }

  /**
   * Looked up with the other look-ups of this turn of the event loop, in one read transaction:
   * a look-up on its own is a read transaction of its own (the WAL's read lock taken and let go),
   * 6 to 20 µs where the index search takes 1, and every submitted item looks up its subject's key
   * (docs/benchmarks.md, "Single-item submissions under load", 2026-11-30, fifth session).
   */
  keyFor(orgId: string, subjectId: string): Promise<SubjectKey> {
    return new Promise((resolve, reject) => {
      this.lookups.push({ orgId, subjectId, resolve, reject });
      if (this.lookups.length === 1) setImmediate(() => this.lookUpPending());
    });
  }

  private lookUpPending(): void {
    const batch = this.lookups;
    if (batch.length === 0) return;
    this.lookups = [];
    let found: LookedUp[];
    try {
      // Inside a transaction already open on the connection (none should be between turns), as it is.
      found = batch.length > 1 && !this.db.inTransaction ? this.lookUpTogether(batch) : this.lookUpEach(batch);
    } catch (error) {
      // The read transaction itself failed (a look-up's own failure is its alone: lookUpEach).
      for (const l of batch) l.reject(error);
      return;
    }
    batch.forEach((l, i) => {
      const outcome = found[i]!;
      if ('error' in outcome) l.reject(outcome.error);
      else if (outcome.row) l.resolve({ keyId: outcome.row.key_id, key: outcome.row.key });
      else this.insertSoon(l.orgId, l.subjectId).then(l.resolve, l.reject);
    });
  }

  /** Each look-up's row or its own error, so that one bad look-up fails only its own request. */
  private lookUpEach(batch: readonly PendingLookup[]): LookedUp[] {
    return batch.map((l) => {
      try {
        return { row: this.stmt.bySubject.get(l.orgId, l.subjectId) };
      } catch (error) {
        return { error };
      }
    });
  }

  /**
   * New keys of one tick are inserted in one transaction: a batch of new subjects costs one commit.
   * A key another process created first (the insert is then ignored) is read back. While another
   * process writes, the batch waits without blocking the event loop (SqliteGroupCommit).
   */
  private async insertSoon(orgId: string, subjectId: string): Promise<SubjectKey> {
    // Time-ordered key ids: new keys go to the end of the primary-key index (see IdGenerator.uuid).
    const created = { keyId: randomUUIDv7(), key: pooledRandomBytes(32) };
    const fresh = await this.writes.run(() => this.stmt.insert.run(created.keyId, orgId, subjectId, created.key).changes === 1);
    if (fresh) return created;
    const winner = this.stmt.bySubject.get(orgId, subjectId)!;
    return { keyId: winner.key_id, key: winner.key };
  }

  async findMany(keyIds: readonly string[]): Promise<Map<string, Buffer>> {
    if (keyIds.length === 0) return new Map();
    return new Map(this.stmt.byIds.all(JSON.stringify(keyIds)).map((r) => [r.key_id, r.key] as const));
  }

  /**
   * Deletes the subject's keys, then empties the write-ahead log (checkpoint TRUNCATE): the WAL
   * still holds the pages written when the key was created, and the checkpoint copies the zeroed
   * page over the database file's. Throws WalNotTruncatedError when other connections kept the
   * WAL in use; the keys are gone by then, and a retry finishes the job.
   */
  async forget(orgId: string, subjectId: string): Promise<number> {
    // Look-ups asked for before the erasure read the key it destroys (what is sealed under it is
    // erased with it), as when each look-up ran at once: not a key created after it.
    this.lookUpPending();
    // Counted in the same commit as the deletion: a process that reads the count after it also
    // finds the key gone (erasures()).
    const forgotten = await this.writes.run(() => {
      const changes = this.stmt.forget.run(orgId, subjectId).changes;
      if (changes > 0) this.stmt.counted.run();
      return changes;
    });
    // This process reads the new count from now on, not one read earlier in the turn.
    this.erasuresThisTurn = undefined;
    await emptyWal(this.db, 'Forgotten subject key');
    return forgotten;
  }

  /**
   * Read once per turn of the event loop: every command on a state with personal data asks (a
   * delivery's, a review job's …), several in one turn, and an erasure committed meanwhile is
   * seen at the next turn, as by a read made a moment earlier.
   */
  erasures(): Promise<number> {
    if (this.erasuresThisTurn === undefined) {
      this.erasuresThisTurn = Promise.resolve(this.stmt.erasures.get()?.count ?? 0);
      setImmediate(() => (this.erasuresThisTurn = undefined));
    }
    return this.erasuresThisTurn;
  }

  async close(): Promise<void> {
    // Look-ups waiting for their turn run now, so that the keys they create are in the last commit.
    this.lookUpPending();
    this.writes.close();
  }
}
