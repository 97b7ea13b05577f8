import type { DomainEvent } from './events.js';

/**
 * An aggregate as pure functions (DESIGN.md section 3): no framework, database or clock.
 * `decide` may throw a DomainError to refuse a command.
 */
export interface Decider<Command, State, Event extends DomainEvent<string, object>> {
  readonly initialState: State;
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

export function foldEvents<State, Event extends DomainEvent<string, object>>(
  decider: Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState);
}
