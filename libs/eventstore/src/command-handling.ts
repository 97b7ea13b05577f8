import {
  type CommandContext,
  type Clock,
  concurrentUpdateConflict,
  type Decider,
  foldStream,
  type DomainEvent,
  type IdGenerator,
  type JsonObject,
  type NewEvent,
} from '#warden/kernel';
import { type AppendResult, type EventStore, WrongExpectedRevisionError } from './event-store.port.js';

export interface HandleOptions {
  /** How often to re-read and re-decide after a concurrent append; then the conflict is reported. */
  readonly retries?: number;
  /** Ids for the new events; deterministic ids make a re-run idempotent (DESIGN.md section 3). */
  readonly eventIds?: (event: DomainEvent<string, object>, index: number) => string;
}

export interface Handled<Event, State = unknown> {
  readonly events: Event[];
  readonly result: AppendResult | undefined;
  /** The aggregate's state after the events decided (as it was when none were). */
  readonly state: State;
}

/**
 * Read, decide, append with the expected revision (DESIGN.md section 3). A concurrent append
 * makes it decide again on the fresh state; after the retries it reports a 409 conflict.
 */
export async function handleCommand<Command, State, Event extends DomainEvent<string, object>>(
  deps: { events: EventStore; clock: Clock; ids: IdGenerator },
  streamName: string,
  decider: Decider<Command, State, Event>,
  command: Command,
  context: CommandContext,
  options: HandleOptions = {},
): Promise<Handled<Event, State>> {
  const retries = options.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    const recorded = await deps.events.readStream(streamName);
    const state = foldStream(decider, streamName, recorded);
    const decided = decider.decide(command, state);
    if (decided.length === 0) return { events: [], result: undefined, state };
    const toAppend = stampEvents(decided, context, deps, options.eventIds);
    const expected = recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision;
    try {
      const result = await deps.events.append(streamName, toAppend, expected);
      return { events: decided, result, state: decided.reduce(decider.evolve, state) };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= retries) throw concurrentUpdateConflict(`${streamName} was changed concurrently; try again`);
    }
  }
}

/** Gives domain events their id and metadata (DESIGN.md section 3) for appending. */
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
    data: e.data as JsonObject,
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
