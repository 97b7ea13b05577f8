import type { RecordedEvent } from '#warden/kernel';

/** What a subscription gets from the tail: events in log order, and the position they account for. */
export interface TailBatch {
  readonly events: RecordedEvent[];
  /** Every event up to here that the reader wants is in `events` (the rest are other types). */
  readonly through: number;
  /** False: the log may hold more after `through` already; read again without waiting. */
  readonly complete: boolean;
}

export interface LogTailSource {
  /** Up to `max` events after `after`, in log order, decoded (one query, one snapshot), each with its stored size. */
  readAfter(after: number, max: number): Array<{ readonly event: RecordedEvent; readonly size: number }>;
  /** Changes whenever the log may have grown (LogNotifier's generation). */
  generation(): number;
  /** The position of the last event (0: empty). */
  head(): number;
}

/**
 * The newest events of the log, read once for every subscription of the process. A worker runs
 * some thirty projections and reactors; each used to query the log on every wake-up for the same
 * few hundred new events. Now the first to wake after a change reads them, the others filter what
 * is in memory, and a subscription that fell behind the tail reads the log itself as before.
 *
 * SQLite commits one writer at a time and assigns positions in commit order, so one query sees a
 * gap-free prefix of the log: the tail is always a contiguous run of the log.
 */
export class LogTail {
  /**
   * The tail is `events[first..]` (and `sizes[first..]`): forgetting the oldest moves `first` on
   * and empties their slots, and the arrays are copied down only once half of them is forgotten.
   * Copying them on every refresh (8,192 events each, every commit of a burst) was a tenth of a
   * worker's allocations (docs/benchmarks.md, "Floods and long histories", fifth session).
   */
  private events: Array<RecordedEvent | undefined> = [];
  private sizes: number[] = [];
  private first = 0;
  private size = 0;
  /** The position the tail's first event follows: the tail covers (start, end]. */
  private start = 0;
  private end = 0;
  private readGeneration = Number.NaN;
  /** The last refresh came back short: the tail reached the head of the log as it was then. */
  private atHead = false;
  private started = false;

  constructor(
    private readonly source: LogTailSource,
    private readonly limits: {
      /** Events kept at most. */
      readonly events: number;
      /** Stored size (data and metadata, in characters) kept at most: items may be large. */
      readonly size: number;
      /** Events read into the tail at once. */
      readonly refresh: number;
    },
  ) {}

  /**
   * Up to `max` events after `after` of the given types, or undefined when the tail does not reach
   * back that far (the caller reads the log).
   */
  read(after: number, types: ReadonlySet<string> | undefined, max: number): TailBatch | undefined {
    this.refresh();
    if (after < this.start || after > this.end) return undefined;
    const events: RecordedEvent[] = [];
    for (let i = this.indexAfter(after); i < this.events.length; i++) {
      const event = this.events[i] as RecordedEvent;
      if (types && !types.has(event.type)) continue;
      events.push(event);
      if (events.length === max) return { events, through: event.position, complete: false };
    }
    return { events, through: this.end, complete: this.atHead };
  }

  private refresh(): void {
    if (!this.started) {
      // The tail begins at the head: subscriptions catching up on older events read the log.
      this.started = true;
      this.start = this.end = this.source.head();
    }
    const generation = this.source.generation();
    // Nothing committed since the last read that reached the head: the tail is current.
    if (generation === this.readGeneration && this.atHead) return;
    this.readGeneration = generation;
    const fresh = this.source.readAfter(this.end, this.limits.refresh);
    this.atHead = fresh.length < this.limits.refresh;
    if (fresh.length === 0) return;
    if (this.events.length === this.first) this.start = this.end;
    for (const { event, size } of fresh) {
      this.events.push(event);
      this.sizes.push(size);
      this.size += size;
    }
    this.end = fresh[fresh.length - 1]!.event.position;
    this.trim();
  }

  /** Forgets the oldest events past either limit; a subscriber still behind them reads the log. */
  private trim(): void {
    const length = this.events.length;
    // The new first index: past the count limit, then past the size limit.
    let first = Math.max(this.first, length - this.limits.events);
    let size = this.size;
    for (let i = this.first; i < first; i++) size -= this.sizes[i]!;
    while (first < length && size > this.limits.size) size -= this.sizes[first++]!;
    if (first === this.first) return;
    this.start = (this.events[first - 1] as RecordedEvent).position;
    // Forgotten events leave memory now, not at the next copy.
    this.events.fill(undefined, this.first, first);
    this.first = first;
    this.size = size;
    if (first * 2 >= length) {
      this.events = this.events.slice(first);
      this.sizes = this.sizes.slice(first);
      this.first = 0;
    }
  }

  /** Index of the first event after `position` (binary search: positions rise, maybe with gaps). */
  private indexAfter(position: number): number {
    let lo = this.first;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid] as RecordedEvent).position <= position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
