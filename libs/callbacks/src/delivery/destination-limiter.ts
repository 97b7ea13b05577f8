/**
 * At most `perDestination` requests in flight to one destination (scheme, host and port), the
 * rest queued in order. Destinations share nothing else, so a receiver that hangs only ever
 * holds its own slots and never delays callbacks to the others.
 */
export class DestinationLimiter {
  private readonly destinations = new Map<string, { active: number; queue: Array<() => void> }>();

  constructor(private readonly perDestination: number) {
    if (!(perDestination >= 1)) throw new RangeError('perDestination must be at least 1');
  }

  async run<T>(destination: string, task: () => Promise<T>): Promise<T> {
    let slot = this.destinations.get(destination);
    if (!slot) {
      slot = { active: 0, queue: [] };
      this.destinations.set(destination, slot);
    }
    if (slot.active >= this.perDestination) await new Promise<void>((resolve) => slot.queue.push(resolve));
    else slot.active++;
    try {
      return await task();
    } finally {
      const next = slot.queue.shift();
      // The slot passes straight to the next waiter; the destination is forgotten once idle.
      if (next) next();
      else if (--slot.active === 0) this.destinations.delete(destination);
    }
  }

  /** Requests waiting for a slot, per destination (for metrics and tests). */
  waiting(destination: string): number {
    return this.destinations.get(destination)?.queue.length ?? 0;
  }

  inFlight(destination: string): number {
    return this.destinations.get(destination)?.active ?? 0;
  }
}
