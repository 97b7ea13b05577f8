import type Database from 'better-sqlite3';

/**
 * Takes a connection's write lock (BEGIN IMMEDIATE) without waiting in SQLite's busy handler,
 * which sleeps on the event loop (1, 2, 5 ... 100 ms at a time) and so stalls every request of
 * the process while another process (a worker, the CLI) writes. A group commit asks again a
 * moment later instead, collecting what arrives meanwhile; after the connection's busy timeout
 * it gives up with SQLITE_BUSY, as the busy handler would.
 */
export class WriteLock {
  /** Milliseconds between two attempts while another connection holds the lock. */
  static readonly RETRY_MS = 1;
  private readonly busyTimeoutMs: number;
  private readonly begin;
  private busySince: number | undefined;

  constructor(private readonly db: Database.Database) {
    this.busyTimeoutMs = Number(db.pragma('busy_timeout', { simple: true }));
    this.begin = db.prepare('BEGIN IMMEDIATE');
  }

  /** True once the transaction is open; false while another connection holds the lock. */
  tryBegin(): boolean {
    // Not a prepared statement: a busy_timeout pragma takes effect when it is compiled. Through
    // exec, not pragma(): pragma() builds a statement object for its result, 20-25 µs a call
    // against under 1 µs, twice per commit (docs/benchmarks.md, "Single-item submissions under load").
    this.db.exec('PRAGMA busy_timeout = 0');
    try {
      this.begin.run();
      this.busySince = undefined;
      return true;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      const now = Date.now();
      this.busySince ??= now;
      if (now - this.busySince < this.busyTimeoutMs) return false;
      this.busySince = undefined;
      throw error;
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`);
    }
  }

  /** Waits in SQLite's busy handler (when there is no later tick, e.g. closing). */
  beginWaiting(): void {
    this.begin.run();
  }
}
