import {
  type Clock,
  type CommandContext,
  concurrentUpdateConflict,
  type Decider,
  deciderEvents,
  type DomainEvent,
  type IdGenerator,
  type NewEvent,
  type RecordedEvent,
} from '#warden/kernel';
import { type AppendResult, type EventStore, type ExpectedRevision, WrongExpectedRevisionError } from '../event-store.port.js';
import type { SnapshotStore } from '../snapshots/snapshot-store.port.js';
import { AggregateCache, type CachedAggregate } from './aggregate-cache.js';

export interface HandleOptions {
  /** How often to read forward and re-decide after a concurrent append; then the conflict is reported. */
  readonly retries?: number;
  /** Ids for the new events; deterministic ids make a re-run idempotent (docs/architecture.md, "Write side"). */
  readonly eventIds?: (event: DomainEvent<string, object>, index: number) => string;
  /** What the log stores of each decided event (e.g. secrets sealed); the decider and the state see it as decided. */
  readonly seal?: (event: DomainEvent<string, object>) => DomainEvent<string, object>;
  /**
   * Appends the decided events this many at a time, each append expecting the one before (events
   * too large to append at once, e.g. a hash bank's). Not atomic: a failure leaves the first chunks
   * written, and the command decided again on that state finishes the work. Decided alone.
   */
  readonly eventsPerAppend?: number;
  /**
   * The command was made on the state at this revision (read with `state`, then shown to someone,
   * e.g. an apply's plan): any append since makes it a 409, not a command decided again on a state
   * its author never saw. Decided alone.
   */
  readonly expectedRevision?: number;
  /**
   * The stream most likely does not exist yet (a new delivery, a new item version's evaluation):
   * the first decision is made on the initial state without reading the stream (one read fewer per
   * command). Safe either way: an existing stream fails the append, which reads and decides again.
   */
  readonly newStream?: boolean;
}

export interface Handled<Event, State = unknown> {
  readonly events: Event[];
  readonly result: AppendResult | undefined;
  /** The aggregate's state after the events decided (as it was when none were). */
  readonly state: State;
  /** The stream's revision that `state` is at (-1: no event yet). */
  readonly revision: number;
}

/** A decider as far as folding goes: what makes two deciders' states of one stream the same. */
type Folding<State, Event extends DomainEvent<string, object>> = Pick<Decider<unknown, State, Event>, 'eventTypes' | 'initialState' | 'evolve' | 'snapshot'>;

export interface AggregatesOptions {
  readonly snapshots?: SnapshotStore;
  /** Estimated bytes of folded states kept in memory (AggregateCache). */
  readonly cacheBytes?: number;
  /** A snapshot is written once a stream has this many events past its last one. */
  readonly snapshotEvery?: number;
  /**
   * True for an event type whose personal fields the log seals: states folded from such streams
   * (unless their snapshot policy says they keep none) are never snapshotted, and cached a short
   * while only, so an erasure leaves no readable copy outside the log.
   */
  readonly personalEventType?: (eventType: string) => boolean;
  /**
   * The deployment's erasure count (SubjectKeyStore.erasures), read before a state that may hold
   * personal data is used: a cached one read before an erasure in any process is read again, so a
   * command never copies an erased subject's data into new events (which would seal it under a
   * new key). Without it, such states are only as fresh as PERSONAL_STATE_TTL_MS.
   */
  readonly erasures?: () => Promise<number>;
  /** A snapshot that could not be written (the command went through; the next read is longer). */
  readonly onSnapshotError?: (streamName: string, error: unknown) => void;
}

/** At most this many commands of one stream are decided together and appended at once. */
const MAX_COMMANDS_PER_APPEND = 64;
/** ... and at most this many events: a larger group waits for the next append. */
const MAX_EVENTS_PER_APPEND = 500;
const DEFAULT_SNAPSHOT_EVERY = 100;
const DEFAULT_RETRIES = 3;
/** Events read at a time while folding a stream from its start or a snapshot (see `current`). */
const FOLD_PAGE = 1_000;

interface Job {
  readonly decider: Decider<unknown, unknown, DomainEvent<string, object>>;
  readonly command: unknown;
  /** Reads what the command needs from the state first (handleAfterReading): decided alone, read again after a conflict. */
  readonly inputs?: (state: unknown, revision: number) => Promise<unknown>;
  readonly context: CommandContext;
  readonly options: HandleOptions;
  readonly resolve: (handled: Handled<DomainEvent<string, object>, unknown>) => void;
  readonly reject: (error: unknown) => void;
}

/** A job's decision within a group: its events stamped and the state (at `revision`) after them, or its refusal. */
type Decided =
  | { readonly job: Job; readonly events: DomainEvent<string, object>[]; readonly stamped: NewEvent[]; readonly state: unknown; readonly revision: number }
  | { readonly job: Job; readonly error: unknown };

/**
 * The one write path of event-sourced aggregates (docs/architecture.md, "Write side"): read the state, decide,
 * append with the expected revision. What keeps a command's cost independent of its stream's
 * length:
 * - states are cached per stream (AggregateCache) and snapshotted every N events (SnapshotStore),
 *   so a command reads only the events after the cached or snapshotted revision, one forward read;
 * - and a command is first decided on the cached state without that read: the append's expected
 *   revision catches an event appended meanwhile by another process (then the stream is read
 *   forward and the command decided again, as after any conflict), and a decision that appends
 *   nothing (a refusal, a no-op) is made again on the stream as read, since only an append checks
 *   that the state it was made on is current;
 * - commands of one stream in this process are queued, and those waiting are decided one after the
 *   other on the evolving state and appended together: a burst on one stream (one user's strikes,
 *   a rule's daily cap) costs one append per group instead of a lost race and a re-read per command.
 *   Other processes still meet the expected revision: a conflict reads forward and decides again.
 */
export class Aggregates {
  private readonly cache: AggregateCache;
  private readonly lanes = new Map<string, Job[]>();
  private readonly foldingIds = new WeakMap<object, string>();
  private readonly personalStates = new WeakMap<object, boolean>();
  private nextFoldingId = 0;
  private readonly snapshotEvery: number;

  constructor(
    private readonly deps: { events: EventStore; clock: Clock; ids: IdGenerator },
    private readonly options: AggregatesOptions = {},
  ) {
    this.cache = new AggregateCache(options.cacheBytes);
    this.snapshotEvery = Math.max(1, options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY);
  }

  /** Decides the command on the stream's current state and appends what it decides. */
  handle<Command, State, Event extends DomainEvent<string, object>>(
    streamName: string,
    decider: Decider<Command, State, Event>,
    command: Command,
    context: CommandContext,
    options: HandleOptions = {},
  ): Promise<Handled<Event, State>> {
    return this.enqueue(streamName, { decider, command, context, options });
  }

  /**
   * As `handle`, for a command that needs inputs read from elsewhere on the strength of the state
   * (the catalog, another stream): `inputs` makes the command from the current state, and makes it
   * again from the fresh state after a concurrent append. Nothing is appended if it throws.
   */
  handleAfterReading<Command, State, Event extends DomainEvent<string, object>>(
    streamName: string,
    decider: Decider<Command, State, Event>,
    inputs: (state: State, revision: number) => Promise<Command>,
    context: CommandContext,
    options: HandleOptions = {},
  ): Promise<Handled<Event, State>> {
    return this.enqueue(streamName, { decider, command: undefined, inputs, context, options });
  }

  private enqueue<Event, State>(
    streamName: string,
    job: Omit<Job, 'resolve' | 'reject' | 'decider' | 'inputs'> & { decider: object; inputs?: (state: never, revision: number) => Promise<unknown> },
  ): Promise<Handled<Event, State>> {
    return new Promise<Handled<Event, State>>((resolve, reject) => {
      const queued = { ...job, resolve, reject } as unknown as Job;
      const lane = this.lanes.get(streamName);
      if (lane) {
        lane.push(queued);
        return;
      }
      this.lanes.set(streamName, [queued]);
      void this.drain(streamName);
    });
  }

  /** The stream's current state (cached, snapshotted: reads only what is newer). */
  async state<State, Event extends DomainEvent<string, object>>(
    streamName: string,
    decider: Folding<State, Event>,
  ): Promise<{ state: State; revision: number }> {
    const counting = this.erasuresFor(streamName, decider);
    const current = await this.current(streamName, decider, counting === undefined ? undefined : await counting);
    return { state: current.state, revision: current.revision };
  }

  /**
   * The stream's state as this process last knew it, without reading the log (undefined: not at
   * hand). Another process may have appended since: only for a shortcut whose miss is harmless,
   * such as skipping a command already applied (a command decided on a stale state is checked by
   * its append's expected revision anyway).
   */
  knownState<State, Event extends DomainEvent<string, object>>(streamName: string, decider: Folding<State, Event>): State | undefined {
    return this.cache.get<State>(this.cacheKey(streamName, decider))?.state;
  }

  /** Every event of the stream and the state they fold to: for readers of the history itself. */
  async history<State, Event extends DomainEvent<string, object>>(
    streamName: string,
    decider: Folding<State, Event>,
  ): Promise<{ state: State; events: Event[] }> {
    // In pages, as `current` folds (a reversal on a flooding user reads them all).
    const events: Event[] = [];
    for await (const page of this.pagesFrom(streamName, 0)) events.push(...deciderEvents(decider, streamName, page));
    return { state: events.reduce(decider.evolve, decider.initialState), events };
  }

  /** Forgets every cached state (an erasure, a test). */
  forgetCached(): void {
    this.cache.clear();
  }

  private async drain(streamName: string): Promise<void> {
    const lane = this.lanes.get(streamName)!;
    while (lane.length > 0) {
      const group = takeGroup(lane, (d) => this.foldingId(d));
      try {
        lane.unshift(...(await this.decideAndAppend(streamName, group)));
      } catch (error) {
        // Nothing in there is expected to throw; if it did, the lane must still drain and no caller hang.
        for (const job of group) job.reject(error);
      }
    }
    this.lanes.delete(streamName);
  }

  /**
   * Decides a group of one stream's commands on one state and appends them at once; a conflict
   * reads forward and decides again. Answers the commands left for the next append (past the
   * events' limit).
   */
  private async decideAndAppend(streamName: string, all: Job[]): Promise<Job[]> {
    let group = all;
    const rest = () => all.slice(group.length);
    const retries = Math.max(...group.map((j) => j.options.retries ?? DEFAULT_RETRIES));
    const expectedRevision = group[0]!.options.expectedRevision;
    const folding = group[0]!.decider;
    // Only a state with personal data waits for the count: every other command goes on in this turn.
    const counting = this.erasuresFor(streamName, folding);
    const erasures = counting === undefined ? undefined : await counting;
    // The first decision is made without reading the stream when its state is at hand (unverified);
    // deciding it again on the stream as read is not a retry: only lost races count.
    let unread = expectedRevision === undefined ? this.unreadState(streamName, folding, group) : undefined;
    let conflicts = 0;
    for (;;) {
      let current: CachedAggregate;
      let decided: Decided[];
      const unverified = unread !== undefined;
      try {
        current = unread ?? (await this.current(streamName, folding, erasures));
        unread = undefined;
        if (expectedRevision !== undefined && current.revision !== expectedRevision) throw conflictOn(streamName);
        decided = this.decideAll(await withInputs(group, current), current);
      } catch (error) {
        // A refusal on an unread state may be the stale state's: decided again on the stream as read.
        if (unverified) continue;
        rejectAll(group, error);
        return rest();
      }
      // Only an append checks the state it was decided on: a decision to append nothing, or that
      // refuses a command, is made again on the stream as read.
      if (unverified && decided.some((d) => !('stamped' in d) || d.stamped.length === 0)) continue;
      if (decided.length < group.length) group = group.slice(0, decided.length);
      const toAppend = decided.flatMap((d) => ('stamped' in d ? d.stamped : []));
      if (toAppend.length === 0) {
        settle(decided, undefined);
        return rest();
      }
      const expected: ExpectedRevision = current.revision < 0 ? 'no_stream' : current.revision;
      try {
        const result = await this.append(streamName, toAppend, expected, group[0]!.options.eventsPerAppend);
        // The log held these events already (a re-run), elsewhere than after the unread state:
        // the states decided on it are not the stream's, so the commands are decided again on it.
        if (unverified && result.nextRevision !== current.revision + toAppend.length) continue;
        settle(decided, result);
        this.remember(streamName, folding, current, decided, result, toAppend.length, erasures);
        return rest();
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) {
          // The unread state was behind the stream: not a lost race, read forward and decide again.
          if (unverified || conflicts++ < retries) continue;
          rejectAll(group, conflictOn(streamName));
          return rest();
        }
        this.cache.delete(this.cacheKey(streamName, folding));
        // One command's events may be what failed (an id already recorded elsewhere): alone, the others go through.
        if (group.length > 1) {
          for (const job of group) await this.decideAndAppend(streamName, [job]);
        } else {
          rejectAll(group, error);
        }
        return rest();
      }
    }
  }

  /** One append, or several in a row for a command whose events go a few at a time. */
  private async append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision, perAppend: number | undefined): Promise<AppendResult> {
    if (!perAppend || events.length <= perAppend) return this.deps.events.append(streamName, events, expected);
    let result: AppendResult | undefined;
    let next = expected;
    for (let i = 0; i < events.length; i += perAppend) {
      result = await this.deps.events.append(streamName, events.slice(i, i + perAppend), next);
      next = result.nextRevision;
    }
    return result!;
  }

  /** Decides the group's commands in turn on the evolving state, until their events reach the append's limit. */
  private decideAll(group: readonly Job[], initial: CachedAggregate): Decided[] {
    let state = initial.state;
    let events = 0;
    const out: Decided[] = [];
    for (const job of group) {
      if (out.length > 0 && events >= MAX_EVENTS_PER_APPEND) break;
      try {
        const decided = job.decider.decide(job.command, state);
        state = decided.reduce(job.decider.evolve, state);
        const seal = job.options.seal;
        const stored = seal ? decided.map((e) => seal(e)) : decided;
        const stamped = stored.length === 0 ? [] : stampEvents(stored, job.context, this.deps, job.options.eventIds);
        events += stamped.length;
        out.push({ job, events: decided, stamped, state, revision: initial.revision + events });
      } catch (error) {
        out.push({ job, error });
      }
    }
    return out;
  }

  /** The state after an append, cached when the append wrote exactly what was decided (not an idempotent replay). */
  private remember(
    streamName: string,
    folding: Folding<unknown, DomainEvent<string, object>>,
    before: CachedAggregate,
    decided: readonly Decided[],
    result: AppendResult,
    appended: number,
    erasures: number | undefined,
  ): void {
    const key = this.cacheKey(streamName, folding);
    try {
      this.keep(key, streamName, folding, before, decided, result, appended, erasures);
    } catch (error) {
      // The append stands; only the cached state is in doubt (a snapshot that could not be encoded).
      this.cache.delete(key);
      this.options.onSnapshotError?.(streamName, error);
    }
  }

  private keep(
    key: string,
    streamName: string,
    folding: Folding<unknown, DomainEvent<string, object>>,
    before: CachedAggregate,
    decided: readonly Decided[],
    result: AppendResult,
    appended: number,
    erasures: number | undefined,
  ): void {
    if (result.nextRevision !== before.revision + appended) {
      // The log already held these events (a re-run): the state to cache is the log's, read next time.
      this.cache.delete(key);
      return;
    }
    const last = [...decided].reverse().find((d): d is Extract<Decided, { state: unknown }> => 'state' in d);
    const entry = { state: last ? last.state : before.state, revision: result.nextRevision, snapshotRevision: before.snapshotRevision, erasures };
    this.cache.set(key, this.maybeSnapshot(streamName, folding, entry), this.holdsPersonalData(folding));
  }

  /**
   * For a state that may hold personal data: the deployment's erasure count now, and this stream's
   * cached state dropped when an erasure has come since it was read (in this process or another:
   * the erasing process forgets its own cache at once, the others learn it here). The state is
   * then read from the log, where what the erasure forgot no longer opens. Undefined for other
   * states, or without `erasures`.
   */
  private erasuresFor(streamName: string, folding: Folding<unknown, DomainEvent<string, object>>): Promise<number> | undefined {
    if (this.options.erasures === undefined || !this.holdsPersonalData(folding)) return undefined;
    return this.options.erasures().then((now) => {
      const key = this.cacheKey(streamName, folding);
      const cached = this.cache.get(key);
      if (cached !== undefined && cached.erasures !== now) this.cache.delete(key);
      return now;
    });
  }

  /**
   * The state a group may be decided on without reading the stream: the cached one, or the initial
   * one for a command that expects a new stream (`newStream`). Undefined: read it (`current`).
   */
  private unreadState(streamName: string, folding: Folding<unknown, DomainEvent<string, object>>, group: readonly Job[]): CachedAggregate | undefined {
    const cached = this.cache.get(this.cacheKey(streamName, folding));
    if (cached) return cached;
    if (group.every((job) => job.options.newStream)) return { state: folding.initialState, revision: -1, snapshotRevision: -1 };
    return undefined;
  }

  /**
   * The stream's state: cached or snapshotted, then the events after it read and folded. `erasures`:
   * the count erasuresFor read before, kept with a state that may hold personal data.
   */
  private async current<State>(streamName: string, folding: Folding<State, DomainEvent<string, object>>, erasures?: number): Promise<CachedAggregate<State>> {
    const key = this.cacheKey(streamName, folding);
    const base = this.cache.get<State>(key) ?? (await this.fromSnapshot(streamName, folding));
    // Read and folded a page at a time, the event loop let go between pages: a stream read whole
    // (no snapshot yet, or a state too large for one: a job of 100,000 reports) is one synchronous
    // read on the embedded log, which held every request for over a second.
    let state = base.state;
    let revision = base.revision;
    for await (const page of this.pagesFrom(streamName, revision + 1)) {
      state = deciderEvents(folding, streamName, page).reduce(folding.evolve, state);
      revision = lastRevision(page);
    }
    if (revision === base.revision) {
      if (base.revision >= 0) this.cache.set(key, { ...base, erasures: base.erasures ?? erasures }, this.holdsPersonalData(folding));
      return base;
    }
    const entry: CachedAggregate<State> = {
      state,
      revision,
      snapshotRevision: base.snapshotRevision,
      erasures: base.erasures ?? erasures,
    };
    const kept = this.maybeSnapshot(streamName, folding, entry);
    this.cache.set(key, kept, this.holdsPersonalData(folding));
    return kept;
  }

  /**
   * The stream's events from revision `from` on, FOLD_PAGE at a time, the event loop let go
   * between pages: a read on the embedded log is synchronous (`current`).
   */
  private async *pagesFrom(streamName: string, from: number): AsyncGenerator<RecordedEvent[]> {
    for (let next = from; ;) {
      const page = await this.deps.events.readStream(streamName, { fromRevision: next, maxCount: FOLD_PAGE });
      if (page.length > 0) yield page;
      if (page.length < FOLD_PAGE) return;
      next = lastRevision(page) + 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private async fromSnapshot<State>(streamName: string, folding: Folding<State, DomainEvent<string, object>>): Promise<CachedAggregate<State>> {
    const empty = { state: folding.initialState, revision: -1, snapshotRevision: -1 };
    const policy = folding.snapshot;
    if (!policy || !this.options.snapshots) return empty;
    const stored = await this.options.snapshots.read(streamName, policy.name);
    // Another version's snapshot was folded by another evolve: fold the stream again.
    if (!stored || stored.version !== policy.version) return empty;
    return { state: policy.decode(stored.state), revision: stored.revision, snapshotRevision: stored.revision };
  }

  /** Writes a snapshot in the background once the stream is N events past the last one (or the policy's spacing). */
  private maybeSnapshot<State>(
    streamName: string,
    folding: Folding<State, DomainEvent<string, object>>,
    entry: CachedAggregate<State>,
  ): CachedAggregate<State> {
    const policy = folding.snapshot;
    const store = this.options.snapshots;
    if (!policy || !store || entry.revision - entry.snapshotRevision < this.snapshotEvery) return entry;
    const spacing = policy.spacing ? policy.spacing(entry.state) : this.snapshotEvery;
    if (spacing === null || entry.revision - entry.snapshotRevision < spacing) return entry;
    const snapshot = { name: policy.name, version: policy.version, revision: entry.revision, state: policy.encode(entry.state) };
    // A state larger than the store takes (KurrentDB's append) is not written; the next try waits
    // for the next spacing all the same, so a large state is not encoded at every command.
    if (store.maxBytes === undefined || Buffer.byteLength(JSON.stringify(snapshot.state)) <= store.maxBytes) {
      store.write(streamName, snapshot).catch((error: unknown) => this.options.onSnapshotError?.(streamName, error));
    }
    return { ...entry, snapshotRevision: entry.revision };
  }

  /**
   * Whether the state may hold personal fields (opened with their subject's key): a decider with
   * events that carry personal data, unless its snapshot policy says its state keeps none of them.
   * Such a state is cached for PERSONAL_STATE_TTL_MS at most and never snapshotted, so an erasure
   * in any process reaches this one's memory within that time (and at once in the erasing process).
   */
  private holdsPersonalData(folding: Folding<unknown, DomainEvent<string, object>>): boolean {
    let known = this.personalStates.get(folding.evolve);
    if (known === undefined) {
      const personal = this.options.personalEventType;
      known = !folding.snapshot && personal !== undefined && Object.keys(folding.eventTypes).some((type) => personal(type));
      this.personalStates.set(folding.evolve, known);
    }
    return known;
  }

  private cacheKey(streamName: string, folding: Folding<unknown, DomainEvent<string, object>>): string {
    return `${this.foldingId(folding)}\u0000${streamName}`;
  }

  /** Deciders sharing `evolve` (a decider and its wrappers) fold one stream to the same state. */
  private foldingId(folding: Pick<Folding<unknown, DomainEvent<string, object>>, 'evolve'>): string {
    let id = this.foldingIds.get(folding.evolve);
    if (id === undefined) {
      id = String(this.nextFoldingId++);
      this.foldingIds.set(folding.evolve, id);
    }
    return id;
  }
}

/**
 * The lane's first commands that fold alike, up to the group's limits, taken out of the lane; a
 * command that reads inputs first goes alone (its reads would hold the others up).
 */
function takeGroup(lane: Job[], foldingId: (decider: Job['decider']) => string): Job[] {
  const alone = (job: Job) => job.inputs !== undefined || job.options.eventsPerAppend !== undefined || job.options.expectedRevision !== undefined;
  if (alone(lane[0]!)) return lane.splice(0, 1);
  const id = foldingId(lane[0]!.decider);
  let count = 0;
  while (count < lane.length && count < MAX_COMMANDS_PER_APPEND && !alone(lane[count]!) && foldingId(lane[count]!.decider) === id) count++;
  return lane.splice(0, count);
}

/** The group with each command made: a group whose command reads inputs is that command alone. */
async function withInputs(group: readonly Job[], current: { state: unknown; revision: number }): Promise<readonly Job[]> {
  const first = group[0]!;
  if (!first.inputs) return group;
  return [{ ...first, command: await first.inputs(current.state, current.revision) }];
}

function settle(decided: readonly Decided[], result: AppendResult | undefined): void {
  for (const d of decided) {
    if ('error' in d) d.job.reject(d.error);
    else d.job.resolve({ events: d.events, result: d.events.length > 0 ? result : undefined, state: d.state, revision: d.revision });
  }
}

function rejectAll(group: readonly Job[], error: unknown): void {
  for (const job of group) job.reject(error);
}

const conflictOn = (streamName: string) => concurrentUpdateConflict(`${streamName} was changed concurrently; try again`);

function lastRevision(events: readonly RecordedEvent[]): number {
  return events[events.length - 1]!.revision;
}

/** Gives domain events their id and metadata (docs/architecture.md, "Write side") for appending. */
export function stampEvents(
  events: readonly DomainEvent<string, object>[],
  context: CommandContext,
  deps: { clock: Clock; ids: IdGenerator },
  eventIds?: (event: DomainEvent<string, object>, index: number) => string,
): NewEvent[] {
  const occurredAt = deps.clock.now().toISOString();
  return events.map((e, i) => ({
    id: eventIds?.(e, i) ?? deps.ids.uuid(),
    type: e.type,
    data: e.data as NewEvent['data'],
    metadata: {
      orgId: context.orgId,
      correlationId: context.correlationId,
      causationId: context.causationId ?? null,
      actor: context.actor,
      occurredAt,
      // The application's event store stamps each type's current version (UpcastingEventStore).
      schemaVersion: 1,
    },
  }));
}
