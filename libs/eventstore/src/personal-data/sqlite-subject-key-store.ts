import { randomBytes, randomUUID } from 'node:crypto';
import type { SqliteDatabase } from '../sqlite/sqlite-database.js';
import type { SubjectKey, SubjectKeyStore } from './subject-key-store.port.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS subject_keys (
  key_id     TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  key        BLOB NOT NULL,
  UNIQUE (org_id, subject_id)
);`;

export class SqliteSubjectKeyStore implements SubjectKeyStore {
  private readonly stmt;
  private pending: Array<[string, string]> = [];
  private flushing: Promise<void> | undefined;

  constructor(private readonly db: SqliteDatabase) {
    db.exec(SCHEMA);
    this.stmt = {
      bySubject: db.prepare<[string, string], { key_id: string; key: Buffer }>(
        'SELECT key_id, key FROM subject_keys WHERE org_id = ? AND subject_id = ?',
      ),
      // OR IGNORE: two processes creating the same subject's key at once both end with the winner's.
      insert: db.prepare('INSERT OR IGNORE INTO subject_keys (key_id, org_id, subject_id, key) VALUES (?, ?, ?, ?)'),
      byId: db.prepare<[string], { key: Buffer }>('SELECT key FROM subject_keys WHERE key_id = ?'),
      forget: db.prepare('DELETE FROM subject_keys WHERE org_id = ? AND subject_id = ?'),
    };
  }

  async keyFor(orgId: string, subjectId: string): Promise<SubjectKey> {
    const existing = this.stmt.bySubject.get(orgId, subjectId);
    if (existing) return { keyId: existing.key_id, key: existing.key };
    await this.insertSoon(orgId, subjectId);
    const created = this.stmt.bySubject.get(orgId, subjectId)!;
    return { keyId: created.key_id, key: created.key };
  }

  /** New keys of one tick are inserted in one transaction: a batch of new subjects costs one commit. */
  private insertSoon(orgId: string, subjectId: string): Promise<void> {
    this.pending.push([orgId, subjectId]);
    this.flushing ??= new Promise<void>((resolve, reject) =>
      setImmediate(() => {
        const batch = this.pending;
        this.pending = [];
        this.flushing = undefined;
        try {
          this.db.transaction(() => {
            for (const [org, subject] of batch) this.stmt.insert.run(randomUUID(), org, subject, randomBytes(32));
          }).immediate();
          resolve();
        } catch (error) {
          reject(error);
        }
      }),
    );
    return this.flushing;
  }

  async find(keyId: string): Promise<Buffer | undefined> {
    return this.stmt.byId.get(keyId)?.key;
  }

  async forget(orgId: string, subjectId: string): Promise<number> {
    return this.stmt.forget.run(orgId, subjectId).changes;
  }

  async close(): Promise<void> {}
}
