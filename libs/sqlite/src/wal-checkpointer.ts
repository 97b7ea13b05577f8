import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpointer copies what the WAL gained since its last round (ms). */
export const CHECKPOINT_INTERVAL_MS = 1000;

/**
 * The thread starts once a file's WAL has reached this size (4 MiB, about 1,000 pages): a thread
 * costs a server's start-up about 0.37 s of CPU (a second V8 isolate, the driver loaded again,
 * its connections), a fifth of it, measured; a server that writes little never needs it (its WAL
 * stays small, and closing its last connection checkpoints it), while a burst passes this within
 * its first second (some 190 KB of WAL an item in the flood bench, docs/benchmarks.md).
 */
export const START_AFTER_WAL_BYTES = 4 * 1024 * 1024;

/**
 * WAL size (pages) past which a committing connection checkpoints by itself while the
 * checkpointer runs: only reached if its thread stopped, so the WAL stays bounded either way.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 100_000;

/**
 * The thread's code: a connection of its own per file, a PASSIVE checkpoint of each every round.
 * PASSIVE takes no lock that a writer or reader waits for: it copies the frames no reader still
 * needs, and the next writer starts the WAL over once all are copied. A round that finds the
 * checkpoint lock taken (another process's checkpointer) skips that file until the next.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const dbs = workerData.files.map((file) => {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 0');
  return db;
});
const round = () => {
  for (const db of dbs) {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch (error) {
      if (error.code !== 'SQLITE_BUSY' && error.code !== 'SQLITE_LOCKED') parentPort.postMessage({ error: String(error) });
    }
  }
};
const timer = setInterval(round, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  round();
  for (const db of dbs) db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints WAL-mode database files on a thread of their own (docs/architecture.md, "Write side").
 *
 * SQLite's automatic checkpoint runs inside the COMMIT that takes the WAL past its limit, on the
 * committing thread: the read models' file, rewritten by every projection, passed 10,000 pages
 * every second or so under a burst, and each such commit held the event loop for 60 to 140 ms while
 * it copied them, a twelfth of the process's time (docs/benchmarks.md, "Floods and long
 * histories"). Here the copying happens beside the event loop; the connections keep an automatic
 * checkpoint only as a bound (FALLBACK_AUTOCHECKPOINT_PAGES), should the thread stop. The thread
 * starts once a WAL has grown past START_AFTER_WAL_BYTES, looked at every interval.
 */
export class WalCheckpointer {
  private worker: Worker | undefined;
  /** Until the thread starts: looks at the WALs' sizes every interval. */
  private watch: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private exited = false;

  /**
   * `onError`: a checkpoint that failed other than by finding another checkpoint under way.
   * `startAfterBytes`: the thread starts once a file's WAL is that large (0: at once).
   */
  constructor(
    private readonly files: readonly string[],
    private readonly onError: (message: string) => void,
    private readonly intervalMs = CHECKPOINT_INTERVAL_MS,
    private readonly startAfterBytes = START_AFTER_WAL_BYTES,
  ) {
    if (!this.check()) {
      this.watch = setInterval(() => this.check(), intervalMs);
      this.watch.unref();
    }
  }

  /** Whether the thread runs. */
  get started(): boolean {
    return this.worker !== undefined;
  }

  /** Starts the thread if a WAL has reached the size (the watch calls it every interval); whether it runs. */
  check(): boolean {
    if (this.worker || this.closing) return this.started;
    if (this.startAfterBytes > 0 && !this.files.some((file) => walBytes(file) >= this.startAfterBytes)) return false;
    clearInterval(this.watch);
    this.start();
    return true;
  }

  private start(): void {
    // The thread loads the same driver as this module (a path, as the thread has no module context of ours).
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(THREAD, { eval: true, workerData: { driver, files: [...this.files], intervalMs: this.intervalMs } });
    worker.on('message', (message: { error?: string }) => {
      if (message.error) this.onError(message.error);
    });
    worker.on('error', (error) => this.onError(String(error)));
    worker.on('exit', () => (this.exited = true));
    // The process may exit while the thread waits for its next round.
    worker.unref();
    this.worker = worker;
  }

  /**
   * A last round, then the thread's connections closed: call before the files' other connections
   * close. Without a thread (the WALs stayed small), nothing to do: closing the last connection of
   * a file checkpoints it.
   */
  close(): Promise<void> {
    clearInterval(this.watch);
    const worker = this.worker;
    this.closing ??=
      worker === undefined || this.exited
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            worker.once('exit', () => resolve());
            // Held by the process again until its last round is done (unreferenced, the process would
            // end with the closing awaited and never settled).
            worker.ref();
            worker.postMessage('close');
          });
    return this.closing;
  }
}

/** The size of `file`'s WAL, 0 when it has none. */
function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}
