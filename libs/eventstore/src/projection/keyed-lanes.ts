import type { RecordedEvent } from '#warden/kernel';

/** First in, first out, with a constant-time `shift` (an array with a moving head, compacted now and then). */
export class Fifo<T> {
  private items: Array<T | undefined> = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  /** The i-th item from the front. */
  at(i: number): T {
    return this.items[this.head + i] as T;
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

/** How a handler ended: undefined when it succeeded. */
export type Failure = { readonly error: unknown } | undefined;

interface Task {
  readonly event: RecordedEvent;
  readonly settle: (failure: Failure) => void;
}

interface Lane {
  readonly key: string;
  readonly org: OrgTurn;
  readonly tasks: Fifo<Task>;
  /** How many of its tasks run now (a run takes what the key had queued, up to RUN_LIMIT). */
  running: number;
}

/**
 * A key's queued events are handed over together, up to this many, in order: its handler may
 * then queue their commands in one go, so that the write path appends them together (a user's
 * strikes in a flood) instead of one synced append each.
 */
export const RUN_LIMIT = 64;

/** An organization's place in the round-robin: its keys with an event ready to start. */
interface OrgTurn {
  readonly org: string;
  readonly ready: Fifo<Lane>;
  /** Events queued or running, over all its keys. */
  held: number;
  inRing: boolean;
}

/**
 * Runs events by key: one key's events one run at a time (what it had queued, in the order pushed); different
 * keys at once, up to `concurrency` handlers. A freed slot goes round-robin across organizations,
 * then across that organization's ready keys, so neither an organization with many keys nor a key
 * with a long queue takes the slots from the others.
 */
export class KeyedLanes {
  private readonly lanes = new Map<string, Lane>();
  private readonly orgs = new Map<string, OrgTurn>();
  private readonly ring = new Fifo<OrgTurn>();
  private running = 0;
  private total = 0;
  private halted = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly handle: (events: readonly RecordedEvent[]) => Promise<void>,
    private readonly concurrency: number,
  ) {}

  /** Events queued or running. */
  get held(): number {
    return this.total;
  }

  /** Events of the key queued or running. */
  heldFor(key: string): number {
    const lane = this.lanes.get(key);
    return lane ? lane.tasks.length + lane.running : 0;
  }

  heldBy(org: string): number {
    return this.orgs.get(org)?.held ?? 0;
  }

  /** Queues `event` behind its key's earlier ones; `settle` is called once its handler has run. */
  push(key: string, org: string, event: RecordedEvent, settle: (failure: Failure) => void): void {
    const lane = this.laneOf(key, org);
    lane.tasks.push({ event, settle });
    lane.org.held++;
    this.total++;
    if (lane.running === 0 && lane.tasks.length === 1) this.makeReady(lane);
    this.pump();
  }

  /** Starts nothing more; what runs finishes (see idle). */
  halt(): void {
    this.halted = true;
  }

  /** Resolves once no handler runs. */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private laneOf(key: string, org: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      let turn = this.orgs.get(org);
      if (!turn) {
        turn = { org, ready: new Fifo(), held: 0, inRing: false };
        this.orgs.set(org, turn);
      }
      lane = { key, org: turn, tasks: new Fifo(), running: 0 };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private makeReady(lane: Lane): void {
    lane.org.ready.push(lane);
    if (!lane.org.inRing) {
      lane.org.inRing = true;
      this.ring.push(lane.org);
    }
  }

  private pump(): void {
    while (!this.halted && this.running < this.concurrency && this.ring.length > 0) {
      const turn = this.ring.shift()!;
      const lane = turn.ready.shift()!;
      if (turn.ready.length > 0) this.ring.push(turn);
      else turn.inRing = false;
      this.start(lane);
    }
  }

  private start(lane: Lane): void {
    const tasks: Task[] = [];
    while (lane.tasks.length > 0 && tasks.length < RUN_LIMIT) tasks.push(lane.tasks.shift()!);
    lane.running = tasks.length;
    this.running++;
    // A handler that throws synchronously is settled like one that rejects.
    void Promise.resolve()
      .then(() => this.handle(tasks.map((t) => t.event)))
      .then(
        () => undefined,
        (error: unknown): Failure => ({ error }),
      )
      .then((failure) => this.finish(lane, tasks, failure));
  }

  private finish(lane: Lane, tasks: readonly Task[], failure: Failure): void {
    lane.running = 0;
    this.running--;
    lane.org.held -= tasks.length;
    this.total -= tasks.length;
    if (lane.tasks.length > 0) this.makeReady(lane);
    else this.lanes.delete(lane.key);
    if (lane.org.held === 0 && !lane.org.inRing) this.orgs.delete(lane.org.org);
    for (const task of tasks) task.settle(failure);
    if (this.running === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.pump();
  }
}
