import { performance } from 'node:perf_hooks';
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
  /**
   * Called before each group takes the write lock: whoever else uses the connection ends what it
   * holds open on it (SqliteReadStore's read transaction of the turn).
   */
  readonly beforeBegin?: () => void;
  /** Called after each commit, once the jobs' promises are settled (e.g. to wake readers). */
  readonly afterCommit?: () => void;
  /**
   * Called right after each commit, when the connection does not sync in COMMIT: the group's jobs
   * settle (and afterCommit runs) once it resolves, so nothing is acknowledged before it is on
   * disk; the next group may run meanwhile (WalSync).
   */
  readonly durable?: () => Promise<void>;
  /**
   * How long one transaction may run its jobs (ms) before it commits and leaves the rest to the
   * next turn of the event loop (default GROUP_BUDGET_MS). A group runs synchronously: every
   * request, timer and callback of the process waits for it to finish.
   */
  readonly budgetMs?: number;
  /** Milliseconds from some origin, for the budget (performance.now; tests count instead). */
  readonly now?: () => number;
}

/**
 * Measured under a flood (docs/benchmarks.md, "Floods and long histories"): unbounded groups held
 * the event loop for up to 200 ms at a time, which every other user's callback waited behind. A
 * few milliseconds keep a group large enough that a commit (and its fsync) is shared by many jobs.
 */
export const GROUP_BUDGET_MS = 10;

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
      this.options.beforeBegin?.();
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
    const outcomes: Outcome[] = [];
    // Closing runs everything now: no later turn of the event loop may touch the connection.
    const budget = wait ? Infinity : (this.options.budgetMs ?? GROUP_BUDGET_MS);
    const now = this.options.now ?? (() => performance.now());
    const started = now();
    try {
      for (const queued of batch) {
        outcomes.push(this.runOne(queued.job));
        // Over budget: what is left goes first in the next group, a turn of the event loop later.
        if (outcomes.length < batch.length && now() - started > budget) {
          this.pending = batch.splice(outcomes.length).concat(this.pending);
          this.scheduled = setImmediate(() => this.flush(false));
          break;
        }
      }
      this.stmt.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.fail(batch, error);
      return;
    }
    const durable = this.options.durable?.();
    if (durable === undefined) this.settle(batch, outcomes);
    else
      durable.then(
        () => this.settle(batch, outcomes),
        // Committed but not known to be on disk: nobody is told it succeeded (the readers wait for
        // the same sync, so they do not act on it either until a later round succeeds).
        (error: unknown) => this.fail(batch, error),
      );
  }

  private settle(batch: readonly Queued[], outcomes: readonly Outcome[]): void {
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
