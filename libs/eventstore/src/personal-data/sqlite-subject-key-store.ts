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

/** Keys found or created are cached for this long; a forget in another process wins within it. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 100_000;

export class SqliteSubjectKeyStore implements SubjectKeyStore {
  private readonly stmt;
  private readonly bySubject = new Map<string, { key: SubjectKey; at: number }>();
  private readonly byId = new Map<string, { key: Buffer; at: number }>();

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
    const cacheKey = `${orgId}\u0000${subjectId}`;
    const hit = this.bySubject.get(cacheKey);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.key;
    let row = this.stmt.bySubject.get(orgId, subjectId);
    if (!row) {
      this.stmt.insert.run(randomUUID(), orgId, subjectId, randomBytes(32));
      row = this.stmt.bySubject.get(orgId, subjectId)!;
    }
    const key = { keyId: row.key_id, key: row.key };
    remember(this.bySubject, cacheKey, key);
    return key;
  }

  async find(keyId: string): Promise<Buffer | undefined> {
    const hit = this.byId.get(keyId);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.key;
    const key = this.stmt.byId.get(keyId)?.key;
    if (key) remember(this.byId, keyId, key);
    return key;
  }

  async forget(orgId: string, subjectId: string): Promise<number> {
    const keyIds = (
      this.db.prepare('SELECT key_id FROM subject_keys WHERE org_id = ? AND subject_id = ?').all(orgId, subjectId) as Array<{
        key_id: string;
      }>
    ).map((r) => r.key_id);
    this.bySubject.delete(`${orgId}\u0000${subjectId}`);
    for (const id of keyIds) this.byId.delete(id);
    return this.stmt.forget.run(orgId, subjectId).changes;
  }

  async close(): Promise<void> {}
}

function remember<V>(cache: Map<string, { key: V; at: number }>, id: string, key: V): void {
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(id, { key, at: Date.now() });
}
