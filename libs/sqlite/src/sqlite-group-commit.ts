import type Database from 'better-sqlite3';
import { WriteLock } from './write-lock.js';

/**
 * One write, run inside the group's transaction. `undo` rolls back what this job wrote so far
 * (its savepoint stays open, so the job may go on); throwing undoes it all and fails only this job.
 */
export type WriteJob<T> = (undo: () => void) => T;

interface Queued {
  readonly job: WriteJob<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

export interface SqliteGroupCommitOptions {
  /** Called after each commit, once the jobs' promises are settled (e.g. to wake readers). */
  readonly afterCommit?: () => void;
}

/**
 * The writes of one connection, group-committed: the jobs queued in one tick run together in one
 * IMMEDIATE transaction (one commit, one fsync), each in a savepoint of its own, so one job's
 * failure never undoes another.
 *
 * The write lock is taken without waiting in SQLite's busy handler, which sleeps on the event loop
 * and so would stall every request of the process while another process (a worker, the CLI) writes:
 * the group asks again a moment later instead, and jobs arriving meanwhile join it. After the
 * connection's busy timeout it fails with SQLITE_BUSY, as the busy handler would (WriteLock).
 */
export class SqliteGroupCommit {
  private pending: Queued[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly lock: WriteLock;
  private readonly stmt;

  constructor(
    private readonly db: Database.Database,
    private readonly options: SqliteGroupCommitOptions = {},
  ) {
    this.lock = new WriteLock(db);
    this.stmt = {
      savepoint: db.prepare('SAVEPOINT job'),
      release: db.prepare('RELEASE job'),
      rollbackTo: db.prepare('ROLLBACK TO job'),
      commit: db.prepare('COMMIT'),
    };
  }

  /** Runs `job` in the next group's transaction; settles once that transaction has committed. */
  run<T>(job: WriteJob<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The SQLite write queue is closed'));
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ job, resolve: resolve as (value: unknown) => void, reject });
      if (this.scheduled === undefined && this.retryTimer === undefined) {
        this.scheduled = setImmediate(() => this.flush(false));
      }
    });
  }

  /**
   * Takes no more jobs and runs the pending ones now, waiting in SQLite's busy handler for the
   * lock (there is no later tick to retry on; a lock still held after the busy timeout fails them
   * with SQLITE_BUSY). Afterwards no timer of this queue touches the connection, so it may be closed.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.flush(true);
  }

  private flush(wait: boolean): void {
    clearImmediate(this.scheduled);
    clearTimeout(this.retryTimer);
    this.scheduled = undefined;
    this.retryTimer = undefined;
    if (this.pending.length === 0) return;
    try {
      if (wait) this.lock.beginWaiting();
      else if (!this.lock.tryBegin()) {
        this.retryTimer = setTimeout(() => this.flush(false), WriteLock.RETRY_MS);
        return;
      }
    } catch (error) {
      this.fail(this.take(), error);
      return;
    }
    const batch = this.take();
    let outcomes: Outcome[];
    try {
      outcomes = batch.map((queued) => this.runOne(queued.job));
      this.stmt.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.fail(batch, error);
      return;
    }
    batch.forEach((queued, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) queued.resolve(outcome.value);
      else queued.reject(outcome.error);
    });
    this.options.afterCommit?.();
  }

  private runOne(job: WriteJob<unknown>): Outcome {
    this.stmt.savepoint.run();
    try {
      const value = job(() => this.stmt.rollbackTo.run());
      this.stmt.release.run();
      return { ok: true, value };
    } catch (error) {
      this.stmt.rollbackTo.run();
      this.stmt.release.run();
      return { ok: false, error };
    }
  }

  private take(): Queued[] {
    const batch = this.pending;
    this.pending = [];
    return batch;
  }

  private fail(batch: readonly Queued[], error: unknown): void {
    for (const queued of batch) queued.reject(error);
  }
}
