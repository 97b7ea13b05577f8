/**
 * Runs a catch-up on behalf of everyone who asks, one at a time. A caller that arrives while one is
 * under way waits for the next, which it shares with all who arrive meanwhile: the one under way
 * may have read the log before the caller's write. So a flood of misses (invented API keys,
 * unknown item types) costs at most one read of the log tail at a time, however many come at once.
 */
export class SharedCatchUp {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly catchUp: () => Promise<void>) {}

  run(): Promise<void> {
    if (this.running === undefined) return this.start();
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.start();
      });
    return this.next;
  }

  private start(): Promise<void> {
    const run = this.catchUp().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }
}
