import { randomUUIDv7 } from 'node:crypto';
import { pooledRandomBytes } from '#warden/kernel';
import { type SqliteDatabase, WriteLock } from '../sqlite/sqlite-database.js';
import type { SubjectKey, SubjectKeyStore } from './subject-key-store.port.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS subject_keys (
  key_id     TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  key        BLOB NOT NULL,
  UNIQUE (org_id, subject_id)
);`;

interface PendingKey {
  readonly orgId: string;
  readonly subjectId: string;
  readonly created: SubjectKey;
  /** True when this insert created the subject's key. */
  readonly resolve: (fresh: boolean) => void;
  readonly reject: (error: unknown) => void;
}

export class SqliteSubjectKeyStore implements SubjectKeyStore {
  private readonly stmt;
  private pending: PendingKey[] = [];
  private flushScheduled = false;
  private readonly writeLock: WriteLock;

  constructor(private readonly db: SqliteDatabase) {
    db.exec(SCHEMA);
    this.writeLock = new WriteLock(db);
    this.stmt = {
      bySubject: db.prepare<[string, string], { key_id: string; key: Buffer }>(
        'SELECT key_id, key FROM subject_keys WHERE org_id = ? AND subject_id = ?',
      ),
      // OR IGNORE: two processes creating the same subject's key at once both end with the winner's.
      insert: db.prepare('INSERT OR IGNORE INTO subject_keys (key_id, org_id, subject_id, key) VALUES (?, ?, ?, ?)'),
      byIds: db.prepare<[string], { key_id: string; key: Buffer }>(
        'SELECT key_id, key FROM subject_keys WHERE key_id IN (SELECT value FROM json_each(?))',
      ),
      forget: db.prepare('DELETE FROM subject_keys WHERE org_id = ? AND subject_id = ?'),
      commit: db.prepare('COMMIT'),
    };
  }

  async keyFor(orgId: string, subjectId: string): Promise<SubjectKey> {
    const existing = this.stmt.bySubject.get(orgId, subjectId);
    if (existing) return { keyId: existing.key_id, key: existing.key };
    return this.insertSoon(orgId, subjectId);
  }

  /**
   * New keys of one tick are inserted in one transaction: a batch of new subjects costs one commit.
   * A key another process created first (the insert is then ignored) is read back. While another
   * process writes, the batch waits without blocking the event loop (WriteLock).
   */
  private insertSoon(orgId: string, subjectId: string): Promise<SubjectKey> {
    // Time-ordered key ids: new keys go to the end of the primary-key index (see IdGenerator.uuid).
    const created = { keyId: randomUUIDv7(), key: pooledRandomBytes(32) };
    const inserted = new Promise<boolean>((resolve, reject) => this.pending.push({ orgId, subjectId, created, resolve, reject }));
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return inserted.then((fresh) => {
      if (fresh) return created;
      const winner = this.stmt.bySubject.get(orgId, subjectId)!;
      return { keyId: winner.key_id, key: winner.key };
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    let outcomes: boolean[];
    try {
      if (!this.writeLock.tryBegin()) {
        this.flushScheduled = true;
        setTimeout(() => this.flush(), WriteLock.RETRY_MS);
        return;
      }
      this.pending = [];
      outcomes = batch.map((p) => this.stmt.insert.run(p.created.keyId, p.orgId, p.subjectId, p.created.key).changes === 1);
      this.stmt.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.pending = [];
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => p.resolve(outcomes[i]!));
  }

  async findMany(keyIds: readonly string[]): Promise<Map<string, Buffer>> {
    if (keyIds.length === 0) return new Map();
    return new Map(this.stmt.byIds.all(JSON.stringify(keyIds)).map((r) => [r.key_id, r.key] as const));
  }

  async forget(orgId: string, subjectId: string): Promise<number> {
    return this.stmt.forget.run(orgId, subjectId).changes;
  }

  async close(): Promise<void> {}
}
