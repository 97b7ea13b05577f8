/**
 * At most `perDestination` requests in flight to one destination (scheme, host and port), the
 * rest queued in order. Destinations share nothing else, so a receiver that hangs only ever
 * holds its own slots and never delays callbacks to the others.
 */
export class DestinationLimiter {
  private readonly destinations = new Map<string, Slots>();

  constructor(private readonly perDestination: number) {
    if (!(perDestination >= 1)) throw new RangeError('perDestination must be at least 1');
  }

  async run<T>(destination: string, task: () => Promise<T>): Promise<T> {
    let slots = this.destinations.get(destination);
    if (!slots) {
      slots = new Slots();
      this.destinations.set(destination, slots);
    }
    if (slots.active >= this.perDestination) await new Promise<void>((resolve) => slots.enqueue(resolve));
    else slots.active++;
    try {
      return await task();
    } finally {
      const next = slots.dequeue();
      // The slot passes straight to the next waiter; the destination is forgotten once idle.
      if (next) next();
      else if (--slots.active === 0) this.destinations.delete(destination);
    }
  }

  /** Requests waiting for a slot, per destination (for metrics and tests). */
  waiting(destination: string): number {
    return this.destinations.get(destination)?.waiting ?? 0;
  }

  inFlight(destination: string): number {
    return this.destinations.get(destination)?.active ?? 0;
  }
}

/** A FIFO of waiters that stays O(1) per operation with tens of thousands queued (Array#shift is not). */
class Slots {
  active = 0;
  private queue: Array<() => void> = [];
  private head = 0;

  get waiting(): number {
    return this.queue.length - this.head;
  }

  enqueue(waiter: () => void): void {
    this.queue.push(waiter);
  }

  dequeue(): (() => void) | undefined {
    if (this.head === this.queue.length) return undefined;
    const waiter = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return waiter;
  }
}
