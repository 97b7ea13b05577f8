/**
 * One timer per scheduled delivery. Timers are only the in-memory edge of the schedule: what is
 * due lives in the log and the pending-deliveries read model, which a restart reloads.
 */
/** setTimeout's limit; a timer firing early is harmless, the due time is checked again. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export class DeliveryTimers<K> {
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout; key: K }>();
  private stopped = false;

  constructor(
    private readonly fire: (key: K) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** (Re)schedules `key` at `at` (epoch ms); an earlier timer for it wins over a later one. */
  schedule(id: string, key: K, at: number): void {
    if (this.stopped) return;
    const existing = this.timers.get(id);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        this.fire(key);
      },
      Math.min(MAX_TIMEOUT_MS, Math.max(0, at - this.now())),
    );
    timer.unref();
    this.timers.set(id, { at, timer, key });
  }

  cancel(id: string): void {
    const existing = this.timers.get(id);
    if (existing) clearTimeout(existing.timer);
    this.timers.delete(id);
  }

  get size(): number {
    return this.timers.size;
  }

  /** Schedules nothing more until `resume`. */
  stop(): void {
    this.stopped = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  resume(): void {
    this.stopped = false;
  }
}
