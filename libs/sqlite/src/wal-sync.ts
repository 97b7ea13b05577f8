import { type FileHandle, open } from 'node:fs/promises';

interface Round {
  /** The highest mark this sync covers: every mark asked for before it started. */
  covers: number;
  readonly done: Promise<void>;
  readonly settle: (error?: unknown) => void;
}

function round(covers: number): Round {
  let settle!: Round['settle'];
  const done = new Promise<void>((resolve, reject) => (settle = (error) => (error === undefined ? resolve() : reject(error))));
  // A round nobody awaits any more (its callers gave up) must not surface as an unhandled rejection.
  done.catch(() => undefined);
  return { covers, done, settle };
}

/**
 * Makes a WAL-mode database's commits durable off the event loop. With `synchronous = FULL`
 * SQLite syncs the WAL inside COMMIT, and better-sqlite3 runs COMMIT on the event loop: every
 * request of the process waits out each fsync (about 0.3 ms here, far more on a busy disk).
 * With `synchronous = NORMAL` COMMIT only writes the WAL, and this syncs the same file on libuv's
 * thread pool before the commit is acknowledged, so an acknowledged commit is exactly as durable.
 * (NORMAL still syncs the WAL header when the WAL restarts, and the WAL before and the database
 * after each checkpoint.)
 *
 * Marks are numbers that only grow, in the order the data they stand for reached the WAL (the
 * log's positions): `through(mark)` resolves once a sync that began after that data was written
 * has finished. Callers arriving while a sync runs share the next one, so a burst of commits costs
 * two syncs, not one each.
 */
export class WalSync {
  private durable = 0;
  private running: Round | undefined;
  private queued: Round | undefined;
  private file: Promise<FileHandle | undefined> | undefined;
  private closed = false;

  constructor(
    private readonly walFile: string,
    private readonly datasync: (file: FileHandle) => Promise<void> = (file) => file.datasync(),
  ) {}

  /** Resolves once everything written to the WAL up to `mark` is on disk. */
  through(mark: number): Promise<void> {
    if (mark <= this.durable) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('The WAL sync is closed'));
    if (this.running === undefined) {
      this.running = round(mark);
      void this.run(this.running);
      return this.running.done;
    }
    if (this.running.covers >= mark) return this.running.done;
    // The running sync may have begun before this mark's data was written: the next one covers it.
    this.queued ??= round(mark);
    this.queued.covers = Math.max(this.queued.covers, mark);
    return this.queued.done;
  }

  /** Waits for the syncs under way, then closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running) await this.running.done.catch(() => undefined);
    const file = await this.file?.catch(() => undefined);
    await file?.close();
  }

  private async run(current: Round): Promise<void> {
    try {
      const file = await this.handle();
      // No WAL file: every connection closed and checkpointed it, so the data is in the database file.
      if (file) await this.datasync(file);
      this.durable = Math.max(this.durable, current.covers);
      current.settle();
    } catch (error) {
      // A failed sync proves nothing about what it covered: those commits fail, the next sync retries.
      current.settle(error instanceof Error ? error : new Error(String(error)));
    }
    this.running = this.queued;
    this.queued = undefined;
    if (this.running) void this.run(this.running);
  }

  /** The WAL file, opened once: SQLite keeps it (and its inode) while any connection is open, and this process holds one. */
  private handle(): Promise<FileHandle | undefined> {
    this.file ??= open(this.walFile, 'r').catch((error: NodeJS.ErrnoException) => {
      this.file = undefined;
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return this.file;
  }
}
