import { AssertionError, deepStrictEqual } from 'node:assert';
import { inspect } from 'node:util';
import { type Decider, foldEvents } from './decider.js';
import type { DomainEvent } from './events.js';

/** An Error class (abstract ones too): the thrown error must be an instance of it. */
export type ErrorClass<E extends Error = Error> = abstract new (...args: never[]) => E;

/** What else a thrown error must satisfy: a RegExp its message matches, or a predicate that returns true. */
export type ErrorCheck<E> = RegExp | ((error: E) => boolean);

/**
 * A decider spec as given/when/then (the idea of emmett's DeciderSpecification), with no test
 * framework: a failed expectation throws an AssertionError (node:assert) whose message names the
 * command and shows the difference, so it fails the spec under any runner.
 *
 *     const spec = deciderSpecification(apiKeyDecider);
 *     spec.given([created]).when(revoke).then([revoked]);
 *     spec.given([created, revoked]).when(revoke).thenNothing();
 *     spec.given([]).when(revoke).thenThrows(DomainError, /No API key/);
 */
export function deciderSpecification<Command, State, Event extends DomainEvent<string, object>>(
  decider: Pick<Decider<Command, State, Event>, 'decide' | 'evolve' | 'initialState'>,
): DeciderSpecification<Command, State, Event> {
  return {
    given(events) {
      const history = [...events];
      const state = foldEvents(decider, history);
      return {
        state,
        when: (command) => when(history.length, state, command, (c, s) => decider.decide(c, s)),
      };
    },
  };
}

export interface DeciderSpecification<Command, State, Event> {
  /** The events already in the stream (none for a new one). */
  given(events: readonly Event[]): DeciderGiven<Command, State, Event>;
}

export interface DeciderGiven<Command, State, Event> {
  /** The state the given events fold to (the decider's initialState folded with evolve). */
  readonly state: State;
  /** The command decided on that state; nothing is decided until one of its `then…` (or `events`) is called. */
  when(command: Command): DeciderWhen<Event>;
}

export interface DeciderWhen<Event> {
  /** The command decides exactly these events, in this order (deep strict equality); returns them. */
  then(expected: readonly Event[]): Event[];
  /** The command decides no event (an idempotent re-run, a command with nothing to change). */
  thenNothing(): void;
  /**
   * The command is refused: `decide` throws, an instance of `errorClass` when given, which also
   * passes `check` when given (a RegExp its message matches, or a predicate returning true).
   * Returns what was thrown, for the spec to look further into it.
   */
  thenThrows(check?: ErrorCheck<unknown>): unknown;
  thenThrows<E extends Error>(errorClass: ErrorClass<E>, check?: ErrorCheck<E>): E;
  /** The events the command decides, unchecked: for a spec that asserts on part of them, or builds a history. */
  events(): Event[];
}

function when<Command, State, Event>(given: number, state: State, command: Command, decide: (command: Command, state: State) => Event[]): DeciderWhen<Event> {
  const scene = `Given ${given} event${given === 1 ? '' : 's'}, when ${commandName(command)}`;
  const decided = (expectation: string): Event[] => {
    try {
      return decide(command, state);
    } catch (error) {
      const failure = new AssertionError({ message: `${scene}: expected ${expectation}, but it threw ${describeError(error)}` });
      failure.cause = error;
      throw failure;
    }
  };
  const equal = (expected: readonly Event[], expectation: string): Event[] => {
    const actual = decided(expectation);
    try {
      deepStrictEqual(actual, expected);
    } catch (error) {
      if (!(error instanceof AssertionError)) throw error;
      // The message alone carries the difference (node:assert's): given actual and expected too, a
      // runner such as vitest would print a second one.
      throw new AssertionError({ message: `${scene}: expected ${expectation}, but it decided ${count(actual)}.\n${error.message}` });
    }
    return actual;
  };

  return {
    then(expected) {
      // `then` makes this object look like a promise: awaited or returned from a test, it would be
      // called with a callback instead of events.
      if (!Array.isArray(expected)) throw new TypeError(`${scene}: then() takes the expected events (an array); was the specification awaited or returned?`);
      return equal(expected, count(expected));
    },
    thenNothing: () => void equal([], 'no events'),
    thenThrows(...args: [ErrorClass?, ErrorCheck<never>?] | [ErrorCheck<unknown>?]): never {
      const [errorClass, check] = isErrorClass(args[0]) ? [args[0], args[1]] : [undefined, args[0]];
      const expectation = `a refusal${errorClass ? ` (${errorClass.name})` : ''}${check ? ` that ${describeCheck(check)}` : ''}`;
      let events: Event[];
      try {
        events = decide(command, state);
      } catch (error) {
        if ((errorClass && !(error instanceof errorClass)) || (check && !passes(check, error))) {
          const failure = new AssertionError({ message: `${scene}: expected ${expectation}, but it threw ${describeError(error)}` });
          failure.cause = error;
          throw failure;
        }
        return error as never;
      }
      throw new AssertionError({ message: `${scene}: expected ${expectation}, but it decided ${count(events)}: ${inspect(events, { depth: 6 })}` });
    },
    events: () => decide(command, state),
  };
}

function isErrorClass(value: unknown): value is ErrorClass {
  return typeof value === 'function' && (value === Error || value.prototype instanceof Error);
}

function passes(check: ErrorCheck<never>, error: unknown): boolean {
  if (check instanceof RegExp) return check.test(error instanceof Error ? error.message : String(error));
  return (check as (error: unknown) => boolean)(error) === true;
}

function describeCheck(check: ErrorCheck<never>): string {
  return check instanceof RegExp ? `matches ${check}` : `passes ${check.toString()}`;
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : inspect(error);
}

function commandName(command: unknown): string {
  const type = typeof command === 'object' && command !== null ? (command as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : inspect(command, { depth: 1 });
}

function count(events: readonly unknown[]): string {
  return `${events.length} event${events.length === 1 ? '' : 's'}`;
}
