import { Fifo } from './fifo.js';

/**
 * At most `size` tasks at once, shared among organizations by share, not only by turns: an
 * organization holds at most its share of the slots, the size divided among the organizations
 * holding or waiting for one, and never more than half of them; a slot freed goes to the
 * organization waiting, in turn, that is under its share. And one slot in eight (at least one) is
 * kept for organizations holding none: an organization that holds one takes another only while more
 * than those are free. A task that cannot be cut short (a fetch or a callback attempt waits for its
 * deadline) is what makes turns alone not enough: with them, one organization whose URLs never
 * answer held every slot, each slot another organization's fast task gave back going to it again
 * at its next turn; with shares alone, two such organizations held every slot between them, and a
 * third waited for one of their deadlines (a helper's hunts, docs/benchmarks.md, "A second hunt for
 * stalls"). Not work-conserving: an organization alone uses half of the slots, two together all
 * but the kept ones; unless `wholeWhenAlone` (for tasks that end on their own, however long),
 * when an organization alone takes every slot but the kept ones.
 *
 * Users: the media fetched and hashed at once (hashing's guarded-media-hasher.ts), the callback
 * attempts under way (callbacks' callback-dispatcher.ts), the regex thread's turns (rules' regex-pool.ts).
 */
export class FairSlots {
  private running = 0;
  /** Slots held, by organization (only those holding one). */
  private readonly held = new Map<string, number>();
  /** Organizations with work waiting, in the order of their next turn; each its own queue. */
  private readonly waiting = new Map<string, Fifo<() => void>>();

  /** Slots that only an organization holding none may take. */
  private readonly kept: number;

  /** The fewest organizations the size is divided among: 2 caps an organization alone at half. */
  private readonly fewestSharing: number;

  constructor(
    private readonly size: number,
    options: { readonly wholeWhenAlone?: boolean } = {},
  ) {
    this.kept = Math.max(1, Math.floor(size / 8));
    this.fewestSharing = options.wholeWhenAlone === true ? 1 : 2;
  }

  /** Tasks under way now (for tests and metrics). */
  get inUse(): number {
    return this.running;
  }

  /** Whether a task of `orgId` asked for now would wait for a slot. */
  wouldWait(orgId: string): boolean {
    return !(this.running < this.size && this.waiting.size === 0 && this.underShare(orgId, true));
  }

  async run<T>(orgId: string, task: () => Promise<T>): Promise<T> {
    const release = await this.acquire(orgId);
    try {
      return await task();
    } finally {
      release();
    }
  }

  /**
   * A slot of `orgId`'s, once its turn comes; the function returned gives it back (once; later
   * calls do nothing). For a task whose slot outlives the scope that took it (run is the rest).
   */
  async acquire(orgId: string): Promise<() => void> {
    if (!this.wouldWait(orgId)) this.take(orgId);
    else {
      const granted = new Promise<void>((resolve) => this.enqueue(orgId, resolve));
      this.dispatch();
      await granted;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(orgId);
    };
  }

  /**
   * Whether `orgId` may take one more slot: its share is the size divided among the organizations
   * holding or waiting (itself counted, `asking` when it is neither yet), at most half (unless
   * `wholeWhenAlone`), at least one;
   * and one that holds a slot leaves the kept ones to those holding none.
   */
  private underShare(orgId: string, asking = false): boolean {
    const holds = this.held.get(orgId) ?? 0;
    if (holds > 0 && this.size - this.running <= this.kept) return false;
    let active = this.held.size;
    for (const waiting of this.waiting.keys()) if (!this.held.has(waiting)) active++;
    if (asking && !this.held.has(orgId) && !this.waiting.has(orgId)) active++;
    const share = Math.max(1, Math.floor(this.size / Math.max(this.fewestSharing, active)));
    return holds < share;
  }

  private take(orgId: string): void {
    this.running++;
    this.held.set(orgId, (this.held.get(orgId) ?? 0) + 1);
  }

  private enqueue(orgId: string, resolve: () => void): void {
    let queue = this.waiting.get(orgId);
    if (queue === undefined) {
      queue = new Fifo();
      this.waiting.set(orgId, queue);
    }
    queue.push(resolve);
  }

  private release(orgId: string): void {
    this.running--;
    const held = (this.held.get(orgId) ?? 1) - 1;
    if (held > 0) this.held.set(orgId, held);
    else this.held.delete(orgId);
    this.dispatch();
  }

  /**
   * Free slots go to the organizations waiting, in turn order, each under its share (one that takes
   * one goes to the back of the turns). A slot stays free while every organization waiting holds
   * its share, or the free ones are the kept ones and every organization waiting holds one: it is
   * the others'.
   */
  private dispatch(): void {
    while (this.running < this.size) {
      let granted = false;
      for (const [orgId, queue] of this.waiting) {
        if (!this.underShare(orgId)) continue;
        const resolve = queue.shift()!;
        this.waiting.delete(orgId);
        if (queue.length > 0) this.waiting.set(orgId, queue);
        this.take(orgId);
        resolve();
        granted = true;
        break;
      }
      if (!granted) return;
    }
  }
}
