import { Fifo, type RecordedEvent } from '#warden/kernel';
import { type Failure, KeyedLanes } from './keyed-lanes.js';

/** How much of a keyed reactor's work is under way at once (Projection.limits). */
export interface KeyedLimits {
  /**
   * Events read and not yet handled that are held in memory. An organization below its fair share
   * (this divided by the organizations with work) may still take events up to twice this, so that
   * one organization's burst never leaves another waiting for room.
   */
  readonly maxInFlight: number;
  /** Handlers running at once. */
  readonly concurrency: number;
  /** Handlers of one group (Projection.groupOf) running at once; `concurrency` when not given. */
  readonly perGroup?: number;
  /** Handlers of one organization running at once; `concurrency` when not given. */
  readonly perOrg?: number;
  /** Events of one key held at once; its later events stay in the log and are read again. */
  readonly perKey: number;
  /**
   * Events read past the watermark and held or handled (not those left in the log, nor handled ones
   * merged into runs) before reading pauses. Handled events behind an unfinished one are merged into
   * a run each (one entry between two unfinished events) once half a window of them is there.
   */
  readonly window: number;
  /**
   * Events left in the log (deferred), and runs of handled events, before reading pauses; 10 ×
   * `window` when not given. Apart from the window: one organization's burst, deferred past its
   * share, no longer fills the window and keeps the reader from another organization's events
   * behind it (200,000 actions of one organization held another's callbacks 17 s at the median:
   * docs/benchmarks.md, "A second hunt for stalls"); nor do the events handled behind an unfinished
   * one, which a user's backlog, taking its turns behind thousands of others' items, keeps there
   * for minutes (docs/benchmarks.md, "An eighth hunt"). A deferred event or a run costs its
   * position and key (about 100 bytes).
   */
  readonly maxDeferred?: number;
}

export const DEFAULT_KEYED_LIMITS: KeyedLimits = { maxInFlight: 2000, concurrency: 64, perKey: 64, window: 20_000 };

/**
 * One event of the window, in log order: held (queued or running), deferred (left in the log) or
 * done; or a run of done events merged into one entry (`count` of them, the last at `position`).
 */
interface Entry {
  readonly position: number;
  readonly key: string;
  readonly org: string;
  state: 'held' | 'deferred' | 'done' | 'run' | 'stretch';
  /** Events of the log it stands for: 1, or a run's. */
  readonly count: number;
}

/** An organization's events held and deferred, and its open stretch: what makes it one of the organizations with work. */
interface OrgBook {
  held: number;
  deferred: number;
  stretched: number;
}

/**
 * An organization's events past its part of the room for deferred ones (OVERFLOW_SHARE), kept as
 * one stretch of the log instead of an entry each: the window holds one entry for it, at its first
 * event, which the watermark does not pass until every event of it is done. Passes hand its events
 * over in log order from `cursor`, and stop at the first one that cannot be taken (so a key's order
 * holds); while it is open, every later event of its organization joins it.
 */
interface Stretch {
  readonly org: string;
  readonly entry: Entry;
  /** The position of its last event read so far. */
  end: number;
  /** Every event of it up to here was handed over (at first, the read position before its first). */
  cursor: number;
  /** Handed over and not done. */
  pending: number;
  /** Its next event, which the last pass could not take: looked at again once it could be. */
  next?: { readonly key: string; readonly position: number };
}

/**
 * An organization may leave at most this part of `maxDeferred` in the log as deferred events of
 * its own; past it, its events join a stretch. Without it, one organization's 200,000 items waiting
 * on its slow partial-items endpoint (2.6 evaluated a second) filled the room, and the reader
 * stopped for every organization for what would have been a day (docs/benchmarks.md, "A ninth hunt").
 */
const OVERFLOW_SHARE = 10;

export interface KeyedSchedulerOptions {
  readonly keyOf: (event: RecordedEvent) => string;
  /** Whose turn a key takes within its organization (Projection.groupOf); the key's own by default. */
  readonly groupOf?: (event: RecordedEvent) => string;
  /** Handles a run of one key's events, in order. */
  readonly handle: (events: readonly RecordedEvent[]) => Promise<void>;
  /** Event types handled; others only move the watermark. */
  readonly eventTypes: readonly string[];
  /** Everything up to here is handled (the checkpoint). */
  readonly after: number;
  readonly limits: KeyedLimits;
  /** Called after anything changed: the watermark moved, room freed up, a handler failed. */
  readonly onChange: () => void;
}

/**
 * Schedules a reactor's events by key (Projection.keyOf): a key's events one at a time in log
 * order, different keys and organizations at once (KeyedLanes), so that one key's backlog delays
 * no other.
 *
 * The reader hands over events in log order (`offer`) and keeps reading while the window has room,
 * instead of waiting for them to be handled. The window is every event past the watermark: held
 * ones (queued or running), done ones, and deferred ones, which are not held but left in the log:
 * an event whose key already holds `perKey` events or has earlier deferred ones, or whose
 * organization is over its share while the budget is used up. Done ones behind an unfinished one
 * are merged into runs (`mergeRuns`). Memory stays bounded (a deferred event or a run costs its
 * position), and later events of other keys are still taken. Deferred events are read again from
 * the log in later passes (`rereadAfter`, `redeliver`) once they can be taken; the window's done
 * entries and runs make sure a pass hands nothing over twice.
 *
 * The watermark is the position of the last event before the oldest one not done: a checkpoint
 * there never skips unfinished work. A handler that fails halts the scheduler and keeps the
 * watermark before its event; the runner restarts from the checkpoint, and the events done after
 * it are handled again (reactors are idempotent).
 */
export class KeyedScheduler {
  private readonly lanes: KeyedLanes;
  private readonly wanted: ReadonlySet<string>;
  private entries = new Fifo<Entry>();
  /** Per key, the positions of its deferred events in log order: only the first may be taken. */
  private readonly deferredByKey = new Map<string, Fifo<number>>();
  private readonly books = new Map<string, OrgBook>();
  private deferredCount = 0;
  /** Open stretches by organization (those whose events have not all been handed over, or that still take new ones). */
  private readonly stretches = new Map<string, Stretch>();
  /** Stretch entries in the window. */
  private stretchCount = 0;
  /** Done entries behind an unfinished one, not yet merged into runs; and the runs. */
  private doneCount = 0;
  private runCount = 0;
  private mark: number;
  /** The last position offered by the reader (events at or before it are not offered again). */
  private read: number;
  private halted = false;
  private failed: Failure;
  /** Events done since the last re-read pass began. */
  private freed = 0;
  /** A key with deferred events has nothing held any more: worth a pass now. */
  private starved = false;
  private completions = 0;

  constructor(private readonly options: KeyedSchedulerOptions) {
    this.lanes = new KeyedLanes(options.handle, options.limits.concurrency, options.limits.perGroup, options.limits.perOrg);
    this.wanted = new Set(options.eventTypes);
    this.mark = this.read = options.after;
  }

  /** Everything up to here is handled. */
  get watermark(): number {
    return this.mark;
  }

  /** The window, or the room for deferred events and runs, is full: the reader waits (for the oldest unfinished event). */
  get full(): boolean {
    const { window, maxDeferred = 10 * window } = this.options.limits;
    const markers = this.deferredCount + this.runCount + this.stretchCount;
    return this.entries.length - markers >= window || markers >= maxDeferred;
  }

  get held(): number {
    return this.lanes.held;
  }

  get deferred(): number {
    return this.deferredCount;
  }

  /** Events handled so far (a count for commit pacing). */
  get handled(): number {
    return this.completions;
  }

  /** The first handler error; the scheduler has halted. */
  get failure(): Failure {
    return this.failed;
  }

  /** True once nothing is held or deferred: everything read is handled. */
  get drained(): boolean {
    return this.entries.length === 0;
  }

  /** The reader's next events, in log order; `through`: the log is read up to here (the rest were other types). */
  offer(events: readonly RecordedEvent[], through: number): void {
    for (const event of events) {
      if (event.position <= this.read || !this.wanted.has(event.type)) continue;
      const before = this.read;
      this.read = event.position;
      const org = event.metadata.orgId;
      const stretch = this.openStretch(org);
      if (stretch) {
        stretch.end = event.position;
        this.starved = true;
        continue;
      }
      const entry: Entry = { position: event.position, key: this.options.keyOf(event), org, state: 'held', count: 1 };
      if (this.admissible(entry)) {
        this.entries.push(entry);
        this.admit(event, entry);
      } else if ((this.books.get(org)?.deferred ?? 0) >= this.overflowAt()) {
        this.startStretch(org, event.position, before);
      } else {
        this.entries.push(entry);
        this.defer(entry);
      }
    }
    this.read = Math.max(this.read, through);
    this.advance();
  }

  /**
   * Where a re-read pass should begin (read after this position), or undefined when none is worth
   * it: a pass waits until enough was handled since the last one, a key with deferred events ran
   * dry, or little is left to run; it starts at the first deferred event that can be taken now.
   */
  rereadAfter(): number | undefined {
    if ((this.deferredCount === 0 && this.stretches.size === 0) || this.halted) return undefined;
    const enough = Math.max(1, Math.min(this.options.limits.perKey >> 1, this.options.limits.maxInFlight >> 4));
    if (!this.starved && this.freed < enough && this.lanes.held >= enough) return undefined;
    this.starved = false;
    this.freed = 0;
    return this.nextRereadAfter(Number.NEGATIVE_INFINITY);
  }

  /**
   * Where a pass goes on after reading up to `position`: at the next deferred event that can be
   * taken now. Only a key's first deferred event can be, so the keys' first ones are looked at,
   * not the window: a hot key's thousands of deferred events were walked at every pass (a
   * helper's hunt: 33 s of a background thread for one item posted 5,000 times).
   */
  nextRereadAfter(position: number): number | undefined {
    if ((this.deferredCount === 0 && this.stretches.size === 0) || this.halted || !this.anyOrganizationMayTake()) return undefined;
    let next: { position: number; index: number } | undefined;
    for (const waiting of this.deferredByKey.values()) {
      const first = waiting.peek();
      if (first === undefined || first <= position || (next !== undefined && first >= next.position)) continue;
      const index = this.indexFrom(first);
      if (this.admissible(this.entries.at(index))) next = { position: first, index };
    }
    // Not before `position`: a stretch's events, which have no entries, may lie between the entry
    // before it and the deferred event, more of them than a batch; read again from that entry, a
    // pass would go back there after every batch and never reach it.
    let after = next === undefined ? undefined : Math.max(position, next.index === 0 ? this.mark : this.entries.at(next.index - 1).position);
    // A stretch is read from its cursor: a pass already past it would miss the events between.
    for (const stretch of this.stretches.values()) {
      if (this.servable(stretch, position) && (after === undefined || stretch.cursor < after)) after = stretch.cursor;
    }
    return after;
  }

  /**
   * How many of the wanted events a pass reads from `after` (a read of at most `max`): through the
   * last deferred event among the next `max` that can be taken now. Past it, what the read would
   * bring is held, done or not to be taken yet, and only decoded to be dropped: a pass that took a
   * hot key's next few events read and decoded 500 each time. Those it lets through become
   * takeable as earlier ones are taken; the pass reads them next (nextRereadAfter).
   */
  rereadSpan(after: number, max: number): number {
    // A stretch's events lie among the later entries, one entry for them all: read a whole batch;
    // so too when its events not yet handed over lie past `after`, where the entries' counts leave them out.
    for (const stretch of this.stretches.values()) if (this.servable(stretch, after) || (stretch.cursor < stretch.end && stretch.end > after)) return max;
    let span = 0;
    for (let i = this.indexAfter(after), read = 0; i < this.entries.length && read < max; i++) {
      const entry = this.entries.at(i);
      read += entry.count;
      if (entry.state === 'deferred' && this.admissible(entry)) span = read;
    }
    return Math.max(1, span);
  }

  /**
   * Events read again from the log, every wanted one after `after`: deferred ones that can be taken
   * now are, and a stretch's next ones in order, when the read began at or before its cursor.
   */
  redeliver(events: readonly RecordedEvent[], after: number): void {
    const stopped = new Set<Stretch>();
    const last = events.at(-1)?.position ?? after;
    for (const stretch of this.stretches.values()) if (after > stretch.cursor) stopped.add(stretch);
    for (const event of events) {
      // A read of every type: another type's event in a stretch's span is not one of its events.
      if (!this.wanted.has(event.type)) continue;
      const stretch = this.stretches.get(event.metadata.orgId);
      if (stretch && event.position > stretch.cursor && event.position <= stretch.end) {
        if (!stopped.has(stretch) && !this.takeFromStretch(stretch, event)) stopped.add(stretch);
        continue;
      }
      const i = this.indexFrom(event.position);
      // Not `break` past the last entry: a stretch's events may come later in the batch.
      if (i >= this.entries.length) continue;
      const entry = this.entries.at(i);
      if (entry.position !== event.position || entry.state !== 'deferred' || !this.admissible(entry)) continue;
      this.undefer(entry);
      this.admit(event, entry);
    }
    // The read went through `last` from at or before these stretches' cursors, taking every event of
    // theirs it met: none is left up to there.
    for (const stretch of this.stretches.values()) {
      if (!stopped.has(stretch)) stretch.cursor = Math.min(Math.max(stretch.cursor, last), stretch.end);
    }
  }

  /** Starts nothing more. */
  halt(): void {
    this.halted = true;
    this.lanes.halt();
  }

  /** Resolves once no handler runs. */
  idle(): Promise<void> {
    return this.lanes.idle();
  }

  /**
   * Whether an event (an entry, or one of a stretch) can be held now: it is the first deferred
   * event of its key (or the key has none), the key holds fewer than `perKey`, and its
   * organization has room (hasRoom).
   */
  private admissible(event: Pick<Entry, 'position' | 'key' | 'org'>): boolean {
    const waiting = this.deferredByKey.get(event.key);
    if (waiting && waiting.peek() !== event.position) return false;
    if (this.lanes.heldFor(event.key) >= this.options.limits.perKey) return false;
    return this.hasRoom(event.org);
  }

  /** Whether the organization may take one more event: the budget is not used up, or it holds less than its fair share (up to twice the budget). */
  private hasRoom(org: string): boolean {
    const held = this.lanes.held;
    const { maxInFlight } = this.options.limits;
    if (held < maxInFlight) return true;
    return held < 2 * maxInFlight && this.lanes.heldBy(org) < this.fairShare(org);
  }

  /**
   * Whether an organization with held-back events may take one now (admissible's room): when none
   * may, no pass can take anything, and the keys are not looked at. Thousands of keys held back
   * behind a used-up budget were, at every pass (the seventh hunt's second profile).
   */
  private anyOrganizationMayTake(): boolean {
    const held = this.lanes.held;
    const { maxInFlight } = this.options.limits;
    if (held < maxInFlight) return true;
    if (held >= 2 * maxInFlight) return false;
    for (const [org, book] of this.books) if ((book.deferred > 0 || book.stretched > 0) && this.hasRoom(org)) return true;
    return false;
  }

  /** The deferred events an organization may leave in the log before its next ones join a stretch. */
  private overflowAt(): number {
    const { window, maxDeferred = 10 * window } = this.options.limits;
    return Math.max(1, Math.floor(maxDeferred / OVERFLOW_SHARE));
  }

  /** The organization's stretch still taking events, if any; one whose events were all handed over is closed: its organization's next ones are entered one by one again, behind those in their keys' lanes. */
  private openStretch(org: string): Stretch | undefined {
    const stretch = this.stretches.get(org);
    if (stretch === undefined || stretch.cursor < stretch.end) return stretch;
    this.closeStretch(stretch);
    return undefined;
  }

  /** `before`: the read position before its first event, where a pass begins to read it. */
  private startStretch(org: string, position: number, before: number): void {
    const entry: Entry = { position, key: '', org, state: 'stretch', count: 1 };
    this.entries.push(entry);
    this.stretchCount++;
    this.stretches.set(org, { org, entry, end: position, cursor: before, pending: 0 });
    this.book(org).stretched++;
  }

  /** Whether a pass that has read up to `position` may hand over the stretch's next events: it has some, the read reaches back to its cursor, and its organization may take one. */
  private servable(stretch: Stretch, position: number): boolean {
    if (stretch.cursor >= stretch.end || stretch.cursor < position) return false;
    return stretch.next ? this.admissible({ ...stretch.next, org: stretch.org }) : this.hasRoom(stretch.org);
  }

  /** Hands over the stretch's next event (the first after its cursor), if it can be taken now; false otherwise. */
  private takeFromStretch(stretch: Stretch, event: RecordedEvent): boolean {
    const key = this.options.keyOf(event);
    if (!this.admissible({ position: event.position, key, org: stretch.org })) {
      stretch.next = { key, position: event.position };
      return false;
    }
    stretch.next = undefined;
    stretch.cursor = event.position;
    stretch.pending++;
    this.book(stretch.org).held++;
    this.lanes.push(key, stretch.org, event, (failure) => this.settleFromStretch(stretch, failure), this.options.groupOf?.(event));
    return true;
  }

  private settleFromStretch(stretch: Stretch, failure: Failure): void {
    this.unbook(stretch.org, 'held');
    // The stretch stays unfinished: the watermark never passes it.
    if (this.haltedBy(failure)) return;
    stretch.pending--;
    this.completions++;
    this.freed++;
    if (stretch.pending === 0 && stretch.cursor < stretch.end) this.starved = true;
    if (stretch.pending === 0 && stretch.cursor === stretch.end) {
      // Done: its entry counts as one done event, and the organization's next events are entered one by one again.
      this.closeStretch(stretch);
      stretch.entry.state = 'done';
      this.stretchCount--;
      this.doneCount++;
      this.advance();
    }
    this.options.onChange();
  }

  /** A handler failed: the scheduler halts, keeping the failure (the first one) for the runner. */
  private haltedBy(failure: Failure): boolean {
    if (!failure) return false;
    this.failed ??= failure;
    this.halt();
    this.options.onChange();
    return true;
  }

  private closeStretch(stretch: Stretch): void {
    if (this.stretches.get(stretch.org) !== stretch) return;
    this.stretches.delete(stretch.org);
    this.unbook(stretch.org, 'stretched');
  }

  private fairShare(org: string): number {
    const orgs = this.books.size + (this.books.has(org) ? 0 : 1);
    return Math.max(this.options.limits.perKey, Math.floor(this.options.limits.maxInFlight / orgs));
  }

  private admit(event: RecordedEvent, entry: Entry): void {
    entry.state = 'held';
    this.book(entry.org).held++;
    this.lanes.push(entry.key, entry.org, event, (failure) => this.settle(entry, failure), this.options.groupOf?.(event));
  }

  private defer(entry: Entry): void {
    entry.state = 'deferred';
    let waiting = this.deferredByKey.get(entry.key);
    if (!waiting) {
      waiting = new Fifo();
      this.deferredByKey.set(entry.key, waiting);
    }
    waiting.push(entry.position);
    this.book(entry.org).deferred++;
    this.deferredCount++;
  }

  private undefer(entry: Entry): void {
    const waiting = this.deferredByKey.get(entry.key)!;
    waiting.shift();
    if (waiting.length === 0) this.deferredByKey.delete(entry.key);
    this.unbook(entry.org, 'deferred');
    this.deferredCount--;
  }

  private settle(entry: Entry, failure: Failure): void {
    this.unbook(entry.org, 'held');
    // The event stays held: the watermark never passes it.
    if (this.haltedBy(failure)) return;
    entry.state = 'done';
    this.doneCount++;
    this.completions++;
    this.freed++;
    if (this.lanes.heldFor(entry.key) === 0 && this.deferredByKey.has(entry.key)) this.starved = true;
    this.advance();
    if (this.doneCount >= Math.max(1, this.options.limits.window >> 1)) this.mergeRuns();
    this.options.onChange();
  }

  /** Drops the done events (and runs) at the front of the window; the watermark follows. */
  private advance(): void {
    for (let front = this.entries.peek(); front !== undefined && (front.state === 'done' || front.state === 'run'); front = this.entries.peek()) {
      this.entries.shift();
      if (front.state === 'done') this.doneCount--;
      else this.runCount--;
      this.mark = front.position;
    }
    if (this.entries.length === 0) this.mark = Math.max(this.mark, this.read);
  }

  /**
   * Merges the done events behind unfinished ones into runs, one entry per run (its last position
   * and how many events it stands for): they then cost a marker each, counted with the deferred
   * events, not the window. Kept one by one, they filled the window whenever one key's event was
   * left unfinished for long while the rest went on (a user's last items, each taking one turn in
   * some 2,000 behind a burst of items without an author: one done every 0.1 s, 1,500 of the
   * others a second), and the reader stopped for every organization (docs/benchmarks.md, "An
   * eighth hunt"). A run follows an unfinished event, so there are never more of them than of
   * those; merging walks the window once every half window of events done behind one.
   */
  private mergeRuns(): void {
    const merged = new Fifo<Entry>();
    let run: { position: number; count: number } | undefined;
    const endRun = () => {
      if (run) merged.push({ position: run.position, key: '', org: '', state: 'run', count: run.count });
      run = undefined;
    };
    let runs = 0;
    for (let i = 0; i < this.entries.length; i++) {
      const entry = this.entries.at(i);
      if (entry.state === 'done' || entry.state === 'run') {
        if (!run) runs++;
        run = { position: entry.position, count: (run?.count ?? 0) + entry.count };
        continue;
      }
      endRun();
      merged.push(entry);
    }
    endRun();
    this.entries = merged;
    this.doneCount = 0;
    this.runCount = runs;
  }

  private book(org: string): OrgBook {
    let book = this.books.get(org);
    if (!book) {
      book = { held: 0, deferred: 0, stretched: 0 };
      this.books.set(org, book);
    }
    return book;
  }

  private unbook(org: string, what: keyof OrgBook): void {
    const book = this.books.get(org)!;
    book[what]--;
    if (book.held === 0 && book.deferred === 0 && book.stretched === 0) this.books.delete(org);
  }

  /** Index of the first entry after `position`. */
  private indexAfter(position: number): number {
    return this.firstIndex((p) => p > position);
  }

  /** Index of the entry at `position`, or of the first one after it. */
  private indexFrom(position: number): number {
    return this.firstIndex((p) => p >= position);
  }

  /** Binary search: positions rise through the window. */
  private firstIndex(beyond: (position: number) => boolean): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (beyond(this.entries.at(mid).position)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
