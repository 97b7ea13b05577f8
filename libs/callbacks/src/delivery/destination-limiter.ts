import { Fifo } from '#warden/kernel';

/**
 * At most `perDestination` requests in flight to one destination (scheme, host and port), the
 * rest waiting. Destinations share nothing else, so a receiver that hangs only ever holds its own
 * slots and never delays callbacks to the others. Within a destination the waiters take turns by
 * organization, then by group (the delivery's user): one user's flood of callbacks, or one
 * organization's burst, waits behind itself, not in front of everyone else's (docs/architecture.md,
 * "Reactors by key"); one group's waiters go in order. The callback dispatcher makes each
 * organization's callbacks to a receiver a destination of their own (its `laneOf`): turns alone do
 * not share slots held until a deadline.
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
    if (slots.active >= this.perDestination) await new Promise<void>((resolve) => slots.waiters.push(turn, resolve));
    else slots.active++;
    try {
      return await task();
    } finally {
      const next = slots.waiters.shift();
      // The slot passes straight to the next waiter; the destination is forgotten once idle.
      if (next) next();
      else if (--slots.active === 0) this.destinations.delete(destination);
    }
  }

  /** Whether a request to `destination` asked for now would wait for a slot. */
  wouldWait(destination: string): boolean {
    const slots = this.destinations.get(destination);
    return slots !== undefined && (slots.waiters.size > 0 || slots.active >= this.perDestination);
  }

  /** Requests waiting for a slot, per destination (for metrics and tests). */
  waiting(destination: string): number {
    return this.destinations.get(destination)?.waiters.size ?? 0;
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

/**
 * Items queued by whose turn they take: organizations round-robin, then their groups round-robin,
 * each group's items in order; O(1) per operation with tens of thousands queued. Two levels, so that
 * one organization with many users (a burst of a capped rule) takes one turn in two when another
 * organization waits, not one in as many as it has users. No turn given: one of its own.
 */
export class TurnQueue<T> {
  size = 0;
  private readonly orgs: Level<Level<Fifo<T>>> = { turns: new Fifo(), queues: new Map() };

  push(turn: Turn | undefined, item: T): void {
    const org = turn?.org ?? Symbol('org');
    const group = turn?.group ?? Symbol('group');
    const groups = levelIn(this.orgs, org, () => ({ turns: new Fifo<string | symbol>(), queues: new Map() }));
    levelIn(groups, group, () => new Fifo<T>()).push(item);
    this.size++;
  }

  shift(): T | undefined {
    const org = this.orgs.turns.shift();
    if (org === undefined) return undefined;
    const groups = this.orgs.queues.get(org)!;
    const group = groups.turns.shift()!;
    const items = groups.queues.get(group)!;
    const item = items.shift()!;
    if (items.length > 0) groups.turns.push(group);
    else groups.queues.delete(group);
    if (groups.turns.length > 0) this.orgs.turns.push(org);
    else this.orgs.queues.delete(org);
    this.size--;
    return item;
  }
}

/** A destination's requests in flight, and those waiting for a slot. */
class Slots {
  active = 0;
  readonly waiters = new TurnQueue<() => void>();
}

interface Level<T> {
  readonly turns: Fifo<string | symbol>;
  readonly queues: Map<string | symbol, T>;
}

/** The queue of `name` in `level`, made (and given its turn at the end) when it has none. */
function levelIn<T>(level: Level<T>, name: string | symbol, make: () => T): T {
  let found = level.queues.get(name);
  if (found === undefined) {
    found = make();
    level.queues.set(name, found);
    level.turns.push(name);
  }
  return found;
}
