import { Fifo } from '#warden/kernel';

/**
 * At most `size` media fetched and hashed at once in the process (docs/hashing.md, "Fetching").
 * Each holds up to 20 MiB until its image is hashed, and evaluations run 64 at once with 4 of an
 * item's images each: without a process-wide bound, one organization's items full of large images
 * could hold gigabytes. A free slot goes to the organizations waiting in turn, so one organization's
 * queue of images never holds up another's item for longer than one turn.
 */
export class MediaSlots {
  private running = 0;
  /** Organizations with work waiting, in the order of their next turn; each its own queue. */
  private readonly waiting = new Map<string, Fifo<() => void>>();

  constructor(private readonly size: number) {}

  /** Media under way now (for tests and metrics). */
  get inUse(): number {
    return this.running;
  }

  async run<T>(orgId: string, task: () => Promise<T>): Promise<T> {
    if (this.running < this.size && this.waiting.size === 0) this.running++;
    else await new Promise<void>((resolve) => this.enqueue(orgId, resolve));
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private enqueue(orgId: string, resolve: () => void): void {
    let queue = this.waiting.get(orgId);
    if (queue === undefined) {
      queue = new Fifo();
      this.waiting.set(orgId, queue);
    }
    queue.push(resolve);
  }

  /** The slot passes to the next organization in turn (which then goes to the back), or is freed. */
  private release(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.running--;
      return;
    }
    const [orgId, queue] = next.value;
    const resolve = queue.shift()!;
    this.waiting.delete(orgId);
    if (queue.length > 0) this.waiting.set(orgId, queue);
    resolve();
  }
}
