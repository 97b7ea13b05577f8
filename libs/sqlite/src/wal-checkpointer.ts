import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpointer copies what the WAL gained since its last round (ms). */
export const CHECKPOINT_INTERVAL_MS = 1000;

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
 * checkpoint only as a bound (FALLBACK_AUTOCHECKPOINT_PAGES), should the thread stop.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private closing: Promise<void> | undefined;
  private exited = false;

  /** `onError`: a checkpoint that failed other than by finding another checkpoint under way. */
  constructor(files: readonly string[], onError: (message: string) => void, intervalMs = CHECKPOINT_INTERVAL_MS) {
    // The thread loads the same driver as this module (a path, as the thread has no module context of ours).
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(THREAD, { eval: true, workerData: { driver, files: [...files], intervalMs } });
    this.worker.on('message', (message: { error?: string }) => {
      if (message.error) onError(message.error);
    });
    this.worker.on('error', (error) => onError(String(error)));
    this.worker.on('exit', () => (this.exited = true));
    // The process may exit while the thread waits for its next round.
    this.worker.unref();
  }

  /** A last round, then the thread's connections closed: call before the files' other connections close. */
  close(): Promise<void> {
    this.closing ??= this.exited
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          this.worker.once('exit', () => resolve());
          // Held by the process again until its last round is done (unreferenced, the process would
          // end with the closing awaited and never settled).
          this.worker.ref();
          this.worker.postMessage('close');
        });
    return this.closing;
  }
}
