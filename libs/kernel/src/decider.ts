import type { DomainEvent, Json } from './events.js';

/**
 * How a decider's state is written to a snapshot and read back (docs/architecture.md,
 * "Write side"). Only for states that hold no personal data: a snapshot sits outside
 * the personal-data codec, and the aggregate store refuses to snapshot a decider whose events carry
 * personal fields. `version` changes whenever `evolve`, the state's shape or an upcaster of its
 * events changes: a snapshot of another version is ignored and the stream is folded again.
 */
export interface SnapshotPolicy<State> {
  /** Names the decider's snapshots of a stream (a stream may be folded by more than one decider). */
  readonly name: string;
  readonly version: number;
  encode(state: State): Json;
  decode(json: Json): State;
  /**
   * For a state whose snapshot grows with it (a set of ids): how many events after the last
   * snapshot the next one is written (the store's N at least), so that the bytes written stay
   * proportional to the stream, not to its square; null: this state is not snapshotted. Without
   * it, every N events. A snapshot larger than its store takes (SnapshotStore.maxBytes: KurrentDB's
   * append) is not written, whatever the policy.
   */
  spacing?(state: State): number | null;
}

/**
 * An aggregate as pure functions (docs/architecture.md, "Write side"): no framework, database or clock.
 * `decide` may throw a DomainError to refuse a command.
 */
export interface Decider<Command, State, Event extends DomainEvent<string, object>> {
  /**
   * Every event type of its streams (a record, so the compiler checks it against the union): the
   * check that lets a recorded event, already upcast to its current shape, reach `evolve` typed.
   */
  readonly eventTypes: Readonly<Record<Event['type'], true>>;
  readonly initialState: State;
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  /** Present when long streams of this decider are snapshotted. */
  readonly snapshot?: SnapshotPolicy<State>;
}

export function foldEvents<State, Event extends DomainEvent<string, object>>(
  decider: Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState);
}

/** A stream holds an event its decider does not know: a foreign or corrupt stream, never folded. */
export class UnknownStreamEventError extends Error {
  constructor(
    readonly streamName: string,
    readonly eventType: string,
  ) {
    super(`Stream ${streamName} holds a ${eventType} event, which its aggregate does not know`);
    this.name = 'UnknownStreamEventError';
  }
}

/** Recorded events of a decider's stream as its own Event type, each checked by type. */
export function deciderEvents<State, Event extends DomainEvent<string, object>>(
  decider: Pick<Decider<unknown, State, Event>, 'eventTypes' | 'evolve'>,
  streamName: string,
  recorded: ReadonlyArray<{ readonly type: string; readonly data: object }>,
): Event[] {
  return recorded.map((e) => {
    if (!isDeciderEvent(decider, e)) throw new UnknownStreamEventError(streamName, e.type);
    return { type: e.type, data: e.data } as Event;
  });
}

/** The state a decider's stream leaves it in: its events checked by type, then folded. */
export function foldStream<State, Event extends DomainEvent<string, object>>(
  decider: Pick<Decider<unknown, State, Event>, 'eventTypes' | 'evolve' | 'initialState'>,
  streamName: string,
  recorded: ReadonlyArray<{ readonly type: string; readonly data: object }>,
): State {
  return deciderEvents(decider, streamName, recorded).reduce(decider.evolve, decider.initialState);
}

function isDeciderEvent<State, Event extends DomainEvent<string, object>>(
  decider: Pick<Decider<unknown, State, Event>, 'eventTypes'>,
  event: { readonly type: string },
): event is Event {
  return Object.hasOwn(decider.eventTypes, event.type);
}
