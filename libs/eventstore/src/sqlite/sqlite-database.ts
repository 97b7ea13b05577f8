import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;

export interface SqliteOptions {
  /**
   * `full` (default) syncs the WAL to disk at every commit, so an acknowledged append survives
   * a power loss; `normal` survives a process crash only, and is faster.
   */
  readonly synchronous?: 'full' | 'normal';
  /** How long a writer waits for another process's write lock before failing. */
  readonly busyTimeoutMs?: number;
  /** Page cache per connection, in MiB (held only as pages are read). */
  readonly cacheMiB?: number;
  /** WAL size, in pages, past which a commit copies the WAL back into the database file. */
  readonly walAutocheckpointPages?: number;
}

/**
 * SQLite's default page cache is 2 MiB: once the log's indexes (event ids and stream names,
 * inserted in random order) outgrow it, every append reads index pages back from the OS.
 */
const DEFAULT_CACHE_MIB = 64;

/**
 * 10,000 pages (40 MB) instead of SQLite's 1,000: the committing thread runs the checkpoint, and
 * index pages rewritten many times between two checkpoints are copied once, so fewer, larger
 * checkpoints cost the writers less (about 4 % of ingestion throughput, measured).
 */
const DEFAULT_WAL_AUTOCHECKPOINT_PAGES = 10_000;

/** The embedded profile keeps the log and the key store in this file (the read models in their own, READ_MODELS_FILE_NAME). */
export const SQLITE_FILE_NAME = 'warden.db';

export function openSqlite(file: string, options: SqliteOptions = {}): SqliteDatabase {
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Created private before SQLite opens it: SQLite gives the -wal and -shm files it creates
    // the database file's mode, so they are private too. An existing file keeps its mode, and is
    // not opened here at all: closing any descriptor of a file drops every POSIX lock the process
    // holds on it, the SHARED lock of this process's other SQLite connections included.
    try {
      closeSync(openSync(file, 'wx', 0o600));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`cache_size = ${-1024 * (options.cacheMiB ?? DEFAULT_CACHE_MIB)}`);
  db.pragma(`wal_autocheckpoint = ${options.walAutocheckpointPages ?? DEFAULT_WAL_AUTOCHECKPOINT_PAGES}`);
  return db;
}

/**
 * Changes whenever another connection (in this process or another) commits to the file;
 * a cheap way to notice the CLI's appends without re-querying the log.
 */
export function dataVersion(db: SqliteDatabase): number {
  let statement = DATA_VERSION.get(db);
  if (statement === undefined) DATA_VERSION.set(db, (statement = db.prepare<[], number>('PRAGMA data_version').pluck()));
  return statement.get()!;
}

/**
 * Each connection's data_version statement, prepared once: `db.pragma()` prepares it anew at every
 * call, and the log's notifier asks at every poll and every read of its generation (about 70 ms of
 * the main thread in a spread of 4,000 items).
 */
const DATA_VERSION = new WeakMap<SqliteDatabase, Database.Statement<[], number>>();
