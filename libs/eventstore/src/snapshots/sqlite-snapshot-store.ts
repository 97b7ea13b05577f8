import type { Json } from '#warden/kernel';
import { SqliteGroupCommit } from '#warden/sqlite';
import type { SqliteDatabase } from '../sqlite/sqlite-database.js';
import type { SnapshotStore, StoredSnapshot } from './snapshot-store.port.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS snapshots (
  stream   TEXT NOT NULL,
  name     TEXT NOT NULL,
  version  INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  state    TEXT NOT NULL,
  PRIMARY KEY (stream, name)
) WITHOUT ROWID;`;

/**
 * Snapshots in the log's file, a row per stream and decider. The connection skips the per-commit
 * sync (as the leases do): a snapshot lost with the power only makes the next read longer.
 */
export class SqliteSnapshotStore implements SnapshotStore {
  /**
   * A snapshot is read and parsed in one go, on the event loop, and written in one commit (and
   * written again as zeros when replaced, the log's file deleting securely): past a few megabytes
   * (about 180,000 ids of a mass-reported job) the stream's paged fold from the last snapshot is
   * the cheaper read.
   */
  readonly maxBytes = 8 * 1024 * 1024;
  private readonly stmt;
  /** Waits for the file's write lock without blocking the event loop, as the log's appends do. */
  private readonly writes: SqliteGroupCommit;

  constructor(db: SqliteDatabase) {
    db.exec(SCHEMA);
    this.writes = new SqliteGroupCommit(db);
    this.stmt = {
      read: db.prepare<[string, string], { version: number; revision: number; state: string }>(
        'SELECT version, revision, state FROM snapshots WHERE stream = ? AND name = ?',
      ),
      // Two processes may snapshot one stream: the later revision wins, whoever writes last.
      write: db.prepare(
        `INSERT INTO snapshots (stream, name, version, revision, state) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (stream, name) DO UPDATE SET version = excluded.version, revision = excluded.revision, state = excluded.state
         WHERE excluded.revision >= snapshots.revision OR excluded.version <> snapshots.version`,
      ),
    };
  }

  async read(streamName: string, name: string): Promise<StoredSnapshot | undefined> {
    const row = this.stmt.read.get(streamName, name);
    return row && { name, version: row.version, revision: row.revision, state: JSON.parse(row.state) as Json };
  }

  async write(streamName: string, snapshot: StoredSnapshot): Promise<void> {
    const state = JSON.stringify(snapshot.state);
    await this.writes.run(() => this.stmt.write.run(streamName, snapshot.name, snapshot.version, snapshot.revision, state));
  }

  async close(): Promise<void> {
    this.writes.close();
  }
}
