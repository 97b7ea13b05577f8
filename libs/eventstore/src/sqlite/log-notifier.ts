/**
 * Wakes subscriptions when the log may have grown: at once for appends made through this
 * process, and within one poll interval for appends committed by other processes (the CLI),
 * which it notices through SQLite's data_version.
 */
export class LogNotifier {
  private waiters: Array<() => void> = [];
  private wakes = 0;
  private lastVersion: number;
  private timer: NodeJS.Timeout | undefined;
  private closeResolve!: () => void;
  readonly closed = new Promise<void>((r) => (this.closeResolve = r));

  constructor(
    private readonly readVersion: () => number,
    private readonly pollIntervalMs: number,
  ) {
    this.lastVersion = readVersion();
  }

  nextChange(): Promise<void> {
    const p = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.ensurePolling();
    return p;
  }

  notify(): void {
    this.wakeAll();
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
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.wakeAll();
    this.closeResolve();
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
