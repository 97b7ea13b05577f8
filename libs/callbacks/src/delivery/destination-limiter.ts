import { Fifo } from '#warden/kernel';

/**
 * At most `perDestination` requests in flight to one destination (scheme, host and port), the
 * rest waiting. Destinations share nothing else, so a receiver that hangs only ever holds its own
 * slots and never delays callbacks to the others. Within a destination the waiters take turns by
 * group (the delivery's user): one user's flood of callbacks waits behind itself, not in front of
 * everyone else's (docs/architecture.md, "Reactors by key"); one group's waiters go in order.
 */
export class DestinationLimiter {
  private readonly destinations = new Map<string, Slots>();

  constructor(private readonly perDestination: number) {
    if (!(perDestination >= 1)) throw new RangeError('perDestination must be at least 1');
  }

  /** `group`: whose turn the task takes among the destination's waiters (a group of its own by default). */
  async run<T>(destination: string, task: () => Promise<T>, group?: string): Promise<T> {
    let slots = this.destinations.get(destination);
    if (!slots) {
      slots = new Slots();
      this.destinations.set(destination, slots);
    }
    if (slots.active >= this.perDestination) await new Promise<void>((resolve) => slots.enqueue(group, resolve));
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

/** A destination's waiters: a queue per group, the groups round-robin; O(1) per operation with tens of thousands queued. */
class Slots {
  active = 0;
  waiting = 0;
  private readonly groups = new Map<string | symbol, Fifo<() => void>>();
  private readonly turns = new Fifo<string | symbol>();

  enqueue(group: string | undefined, waiter: () => void): void {
    // No group: a turn of its own.
    const name = group ?? Symbol('waiter');
    let queue = this.groups.get(name);
    if (!queue) {
      queue = new Fifo();
      this.groups.set(name, queue);
      this.turns.push(name);
    }
    queue.push(waiter);
    this.waiting++;
  }

  dequeue(): (() => void) | undefined {
    const name = this.turns.shift();
    if (name === undefined) return undefined;
    const queue = this.groups.get(name)!;
    const waiter = queue.shift()!;
    if (queue.length > 0) this.turns.push(name);
    else this.groups.delete(name);
    this.waiting--;
    return waiter;
  }
}
