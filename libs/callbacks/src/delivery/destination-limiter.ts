import { Fifo } from '#warden/kernel';

/**
 * At most `perDestination` requests in flight to one destination (scheme, host and port), the
 * rest waiting. Destinations share nothing else, so a receiver that hangs only ever holds its own
 * slots and never delays callbacks to the others. Within a destination the waiters take turns by
 * organization, then by group (the delivery's user): one user's flood of callbacks, or one
 * organization's burst, waits behind itself, not in front of everyone else's (docs/architecture.md,
 * "Reactors by key"); one group's waiters go in order.
 */
export class DestinationLimiter {
  private readonly destinations = new Map<string, Slots>();

  constructor(private readonly perDestination: number) {
    if (!(perDestination >= 1)) throw new RangeError('perDestination must be at least 1');
  }

  /** `turn`: whose turn the task takes among the destination's waiters (one of its own by default). */
  async run<T>(destination: string, task: () => Promise<T>, turn?: Turn): Promise<T> {
    let slots = this.destinations.get(destination);
    if (!slots) {
      slots = new Slots();
      this.destinations.set(destination, slots);
    }
    if (slots.active >= this.perDestination) await new Promise<void>((resolve) => slots.enqueue(turn, resolve));
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

  /** Whether a request to `destination` asked for now would wait for a slot. */
  wouldWait(destination: string): boolean {
    const slots = this.destinations.get(destination);
    return slots !== undefined && (slots.waiting > 0 || slots.active >= this.perDestination);
  }

  /** Requests waiting for a slot, per destination (for metrics and tests). */
  waiting(destination: string): number {
    return this.destinations.get(destination)?.waiting ?? 0;
  }

  inFlight(destination: string): number {
    return this.destinations.get(destination)?.active ?? 0;
  }
}

/** Whose turn a waiting task takes: its organization's, then, within it, its group's. */
export interface Turn {
  readonly org: string;
  readonly group: string;
}

interface Queue<T> {
  readonly turns: Fifo<string | symbol>;
  readonly queues: Map<string | symbol, T>;
}

/**
 * A destination's waiters: organizations round-robin, then their groups round-robin, each group's
 * waiters in order; O(1) per operation with tens of thousands queued. Two levels, so that one
 * organization with many users (a burst of a capped rule) takes one turn in two when another
 * organization waits, not one in as many as it has users.
 */
class Slots {
  active = 0;
  waiting = 0;
  private readonly orgs: Queue<Queue<Fifo<() => void>>> = { turns: new Fifo(), queues: new Map() };

  enqueue(turn: Turn | undefined, waiter: () => void): void {
    // No turn given: one of its own.
    const org = turn?.org ?? Symbol('org');
    const group = turn?.group ?? Symbol('group');
    const groups = queueIn(this.orgs, org, () => ({ turns: new Fifo<string | symbol>(), queues: new Map() }));
    queueIn(groups, group, () => new Fifo<() => void>()).push(waiter);
    this.waiting++;
  }

  dequeue(): (() => void) | undefined {
    const org = this.orgs.turns.shift();
    if (org === undefined) return undefined;
    const groups = this.orgs.queues.get(org)!;
    const group = groups.turns.shift()!;
    const waiters = groups.queues.get(group)!;
    const waiter = waiters.shift()!;
    if (waiters.length > 0) groups.turns.push(group);
    else groups.queues.delete(group);
    if (groups.turns.length > 0) this.orgs.turns.push(org);
    else this.orgs.queues.delete(org);
    this.waiting--;
    return waiter;
  }
}

/** The queue of `name` in `queue`, made (and given its turn at the end) when it has none. */
function queueIn<T>(queue: Queue<T>, name: string | symbol, make: () => T): T {
  let found = queue.queues.get(name);
  if (found === undefined) {
    found = make();
    queue.queues.set(name, found);
    queue.turns.push(name);
  }
  return found;
}
