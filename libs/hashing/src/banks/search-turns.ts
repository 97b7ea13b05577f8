import { Fifo } from '#warden/kernel';

/**
 * One long bank search at a time in the process, organizations in turn, each started after a turn
 * of the event loop. A search that scans a million hashes holds the thread for about 12 ms; an
 * organization whose rule asks for the distance of every image of a burst queued a hundred of them
 * back to back, and another organization's items waited behind them all (its callbacks' median
 * 0.55 s, their p99 2.2 s: docs/hashing.md). In turns, what else is waiting runs between two
 * searches, and one organization's searches wait for another's only one at a time.
 */
export class SearchTurns {
  private running = false;
  /** Organizations with searches waiting, in the order of their next turn; each its own queue. */
  private readonly waiting = new Map<string, Fifo<() => void>>();

  async run<T>(orgId: string, search: () => T): Promise<T> {
    await new Promise<void>((resolve) => {
      let queue = this.waiting.get(orgId);
      if (!queue) this.waiting.set(orgId, (queue = new Fifo()));
      queue.push(resolve);
      this.next();
    });
    try {
      return search();
    } finally {
      this.running = false;
      this.next();
    }
  }

  /** Searches waiting (for tests). */
  get queued(): number {
    let n = 0;
    for (const queue of this.waiting.values()) n += queue.length;
    return n;
  }

  private next(): void {
    if (this.running) return;
    const first = this.waiting.entries().next();
    if (first.done) return;
    const [orgId, queue] = first.value;
    const start = queue.shift()!;
    // To the back of the turns: the next organization goes first.
    this.waiting.delete(orgId);
    if (queue.length > 0) this.waiting.set(orgId, queue);
    this.running = true;
    setImmediate(start);
  }
}
