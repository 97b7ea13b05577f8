import { BroadcastChannel } from 'node:worker_threads';

/**
 * Wakes subscriptions when the log may have grown: at once for appends made through this
 * connection, as soon as a message can pass for appends by another thread of this process (the
 * background thread, docs/architecture.md: the threads of one file share a broadcast channel),
 * and within one poll interval for appends committed by other processes (the CLI, a second
 * worker), which it notices through SQLite's data_version.
 */
export class LogNotifier {
  /** The process's other connections to the same file, on other threads: told of each commit here. */
  private readonly channel: BroadcastChannel | undefined;
  private isClosed = false;
  private waiters: Array<() => void> = [];
  private wakes = 0;
  private lastVersion: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly readVersion: () => number,
    private readonly pollIntervalMs: number,
    /** The log's file; absent for an in-memory database, which no other connection shares. */
    file?: string,
  ) {
    this.lastVersion = readVersion();
    if (file !== undefined) {
      this.channel = new BroadcastChannel(`warden-log:${file}`);
      this.channel.onmessage = () => this.wakeAll();
      // Never what keeps a thread alive: its stores' close ends it anyway.
      this.channel.unref();
    }
  }

  /** Resolves at the next change, or at close (at once when already closed: no reader waits for ever). */
  nextChange(): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    const p = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.ensurePolling();
    return p;
  }

  /**
   * A commit through this connection: wakes this thread's readers and the other threads'. A commit
   * whose WAL sync ends after the store closed (its last group commit) wakes no other thread: a
   * closed channel would throw, and the store's close must not fail its last appends.
   */
  notify(): void {
    this.wakeAll();
    if (!this.isClosed) this.channel?.postMessage(0);
  }

  /**
   * Counts the wake-ups. A reader that saw the same count has missed no commit of this process
   * since; another process's commits count from the poll that notices them (within one poll
   * interval), so a reader may see those that much later than the log has them.
   */
  get generation(): number {
    return this.wakes;
  }

  wakeAll(): void {
    this.wakes++;
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }

  close(): void {
    this.isClosed = true;
    this.channel?.close();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.wakeAll();
  }

  private ensurePolling(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.waiters.length === 0) return;
      let v: number;
      try {
        v = this.readVersion();
      } catch {
        return;
      }
      if (v !== this.lastVersion) {
        this.lastVersion = v;
        this.wakeAll();
      }
    }, this.pollIntervalMs);
    this.timer.unref();
  }
}
