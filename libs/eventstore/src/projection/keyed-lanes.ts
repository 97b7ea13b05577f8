import { Fifo, type RecordedEvent } from '#warden/kernel';

/** How a handler ended: undefined when it succeeded. */
export type Failure = { readonly error: unknown } | undefined;

interface Task {
  readonly event: RecordedEvent;
  readonly settle: (failure: Failure) => void;
}

interface Lane {
  readonly key: string;
  readonly group: GroupTurn;
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

/** An organization's place in the round-robin: its groups with a key ready to start. */
interface OrgTurn {
  readonly org: string;
  readonly ready: Fifo<GroupTurn>;
  readonly groups: Map<string, GroupTurn>;
  /** Events queued or running, over all its keys. */
  held: number;
  /** Its runs under way now. */
  running: number;
  inRing: boolean;
}

/** A group's place in its organization's round-robin (Projection.groupOf): its keys ready to start. */
interface GroupTurn {
  readonly group: string;
  readonly org: OrgTurn;
  readonly ready: Fifo<Lane>;
  /** Its keys that have a lane now. */
  lanes: number;
  /** Its runs under way now. */
  running: number;
  inRing: boolean;
}

/**
 * Runs events by key: one key's events one run at a time (what it had queued, in the order pushed); different
 * keys at once, up to `concurrency` handlers. A freed slot goes round-robin across organizations,
 * then across that organization's groups (by default each key is its own group), then across the
 * group's ready keys, so that neither an organization with many keys, nor a group with many keys
 * (one user's flood of items, each its own key), nor a key with a long queue takes the slots from
 * the others. A group runs at most `perGroup` at once: the handlers share one event loop, so what
 * starts beside a flood's 64 runs takes about 64 times its own time to finish, beside 16 a quarter
 * of that (docs/benchmarks.md, "Floods and long histories"). An organization runs at most `perOrg`
 * at once: handlers that wait on something slow (a customer's classifier, media) would otherwise
 * hold every slot, and no other organization's event would start until one of them ended.
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
    /** Runs of one group at once (KeyedLimits.perGroup). */
    private readonly perGroup: number = concurrency,
    /** Runs of one organization at once (KeyedLimits.perOrg). */
    private readonly perOrg: number = concurrency,
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

  /**
   * Queues `event` behind its key's earlier ones; `settle` is called once its handler has run.
   * `group`: whose turn the key takes within its organization (the key's own by default); a key's
   * group is the one it had when its first queued event came.
   */
  push(key: string, org: string, event: RecordedEvent, settle: (failure: Failure) => void, group: string = key): void {
    const lane = this.laneOf(key, org, group);
    lane.tasks.push({ event, settle });
    lane.group.org.held++;
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

  private laneOf(key: string, org: string, group: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      let turn = this.orgs.get(org);
      if (!turn) {
        turn = { org, ready: new Fifo(), groups: new Map(), held: 0, running: 0, inRing: false };
        this.orgs.set(org, turn);
      }
      let groupTurn = turn.groups.get(group);
      if (!groupTurn) {
        groupTurn = { group, org: turn, ready: new Fifo(), lanes: 0, running: 0, inRing: false };
        turn.groups.set(group, groupTurn);
      }
      groupTurn.lanes++;
      lane = { key, group: groupTurn, tasks: new Fifo(), running: 0 };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private makeReady(lane: Lane): void {
    const group = lane.group;
    group.ready.push(lane);
    if (!group.inRing) this.enterRound(group);
  }

  /** Puts a group with ready keys back in its organization's round, and the organization in the ring. */
  private enterRound(group: GroupTurn): void {
    group.inRing = true;
    group.org.ready.push(group);
    if (!group.org.inRing) {
      group.org.inRing = true;
      this.ring.push(group.org);
    }
  }

  private pump(): void {
    while (!this.halted && this.running < this.concurrency && this.ring.length > 0) {
      const turn = this.ring.shift()!;
      if (turn.running >= this.perOrg) {
        // At its limit: out of the ring until one of its runs ends (finish puts it back).
        turn.inRing = false;
        continue;
      }
      const group = turn.ready.shift()!;
      if (group.running >= this.perGroup) {
        // At its limit: out of the round until one of its runs ends (finish puts it back).
        group.inRing = false;
        if (turn.ready.length > 0) this.ring.push(turn);
        else turn.inRing = false;
        continue;
      }
      const lane = group.ready.shift()!;
      if (group.ready.length > 0) turn.ready.push(group);
      else group.inRing = false;
      if (turn.ready.length > 0) this.ring.push(turn);
      else turn.inRing = false;
      group.running++;
      turn.running++;
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
    const { group } = lane;
    const org = group.org;
    lane.running = 0;
    this.running--;
    group.running--;
    org.running--;
    if (group.ready.length > 0 && !group.inRing) this.enterRound(group);
    else if (org.ready.length > 0 && !org.inRing) {
      org.inRing = true;
      this.ring.push(org);
    }
    org.held -= tasks.length;
    this.total -= tasks.length;
    if (lane.tasks.length > 0) this.makeReady(lane);
    else {
      this.lanes.delete(lane.key);
      if (--group.lanes === 0 && !group.inRing) org.groups.delete(group.group);
    }
    if (org.held === 0 && !org.inRing) this.orgs.delete(org.org);
    for (const task of tasks) task.settle(failure);
    if (this.running === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.pump();
  }
}
