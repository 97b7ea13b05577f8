import { Inject, Injectable } from '@nestjs/common';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  handleCommand,
  type Handled,
  type HandleOptions,
  stampEvents,
} from '#warden/eventstore';
import { type Clock, type CommandContext, type Decider, deciderEvents, type DomainEvent, type IdGenerator, type NewEvent } from '#warden/kernel';
import { CLOCK, ID_GENERATOR } from '#warden/platform';
import { EVENT_STORE } from './storage.tokens.js';

/** Command handlers' access to event-sourced aggregates: load a state, or read-decide-append. */
@Injectable()
export class AggregateStore {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  handle<Command, State, Event extends DomainEvent<string, object>>(
    streamName: string,
    decider: Decider<Command, State, Event>,
    command: Command,
    context: CommandContext,
    options?: HandleOptions,
  ): Promise<Handled<Event, State>> {
    return handleCommand(
      { events: this.events, clock: this.clock, ids: this.ids },
      streamName,
      decider,
      command,
      context,
      options,
    );
  }

  /** The current state and the events it was folded from. */
  async load<State, Event extends DomainEvent<string, object>>(
    streamName: string,
    decider: Pick<Decider<unknown, State, Event>, 'eventTypes' | 'initialState' | 'evolve'>,
  ): Promise<{ state: State; events: Event[] }> {
    const events = deciderEvents(decider, streamName, await this.events.readStream(streamName));
    return { state: events.reduce(decider.evolve, decider.initialState), events };
  }

  /** Whether a stream has any event (e.g. an organization exists). */
  async exists(streamName: string): Promise<boolean> {
    return (await this.events.readStream(streamName, { maxCount: 1 })).length > 0;
  }

  /**
   * Appends domain events outside a decider (reactors, imports): stamped with ids and metadata,
   * optionally with ids derived from their cause so that a re-run appends nothing new.
   */
  record(
    streamName: string,
    events: readonly DomainEvent<string, object>[],
    context: CommandContext,
    expected: ExpectedRevision,
    eventIds?: (event: DomainEvent<string, object>, index: number) => string,
  ): Promise<AppendResult> {
    return this.events.append(streamName, this.stamp(events, context, eventIds), expected);
  }

  /** Stamps events for a later append (e.g. to collect a batch first). */
  stamp(
    events: readonly DomainEvent<string, object>[],
    context: CommandContext,
    eventIds?: (event: DomainEvent<string, object>, index: number) => string,
  ): NewEvent[] {
    return stampEvents(events, context, { clock: this.clock, ids: this.ids }, eventIds);
  }

  newId(prefix: string, bytes = 12): string {
    return prefix + this.ids.token(bytes);
  }
}
