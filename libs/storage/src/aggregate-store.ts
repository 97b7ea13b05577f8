import { Inject, Injectable } from '@nestjs/common';
import {
  Aggregates,
  type AggregatesOptions,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type Handled,
  type HandleOptions,
  stampEvents,
} from '#warden/eventstore';
import { type Clock, type CommandContext, type Decider, type DomainEvent, type IdGenerator } from '#warden/kernel';
import { CLOCK, ID_GENERATOR } from '#warden/platform';
import { EVENT_STORE } from './storage.tokens.js';

type Folding<State, Event extends DomainEvent<string, object>> = Pick<Decider<unknown, State, Event>, 'eventTypes' | 'initialState' | 'evolve' | 'snapshot'>;

/**
 * Command handlers' access to event-sourced aggregates (Aggregates: the one write path, its state
 * cache and snapshots), and the appends of what no decider decides (`record`).
 */
@Injectable()
export class AggregateStore {
  private readonly aggregates: Aggregates;

  /** The application's store is made by StorageModule with the cache, snapshots and personal-data policy (`options`). */
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    options: AggregatesOptions = {},
  ) {
    this.aggregates = new Aggregates({ events, clock, ids }, options);
  }

  /** Read (cached), decide, append with the expected revision; commands of one stream are queued and appended together. */
  handle<Command, State, Event extends DomainEvent<string, object>>(
    streamName: string,
    decider: Decider<Command, State, Event>,
    command: Command,
    context: CommandContext,
    options?: HandleOptions,
  ): Promise<Handled<Event, State>> {
    return this.aggregates.handle(streamName, decider, command, context, options);
  }

  /** As `handle`, with the command made from the current state by reads elsewhere (made again after a conflict). */
  handleAfterReading<Command, State, Event extends DomainEvent<string, object>>(
    streamName: string,
    decider: Decider<Command, State, Event>,
    inputs: (state: State, revision: number) => Promise<Command>,
    context: CommandContext,
    options?: HandleOptions,
  ): Promise<Handled<Event, State>> {
    return this.aggregates.handleAfterReading(streamName, decider, inputs, context, options);
  }

  /** The stream's current state, reading only what is newer than the cached or snapshotted state. */
  async state<State, Event extends DomainEvent<string, object>>(streamName: string, decider: Folding<State, Event>): Promise<State> {
    return (await this.aggregates.state(streamName, decider)).state;
  }

  /** The state as this process last knew it, without reading the log (Aggregates.knownState): for shortcuts whose miss is harmless. */
  knownState<State, Event extends DomainEvent<string, object>>(streamName: string, decider: Folding<State, Event>): State | undefined {
    return this.aggregates.knownState(streamName, decider);
  }

  /** As `state`, with the revision it is at: for a command made on it later (`expectedRevision`). */
  stateAt<State, Event extends DomainEvent<string, object>>(streamName: string, decider: Folding<State, Event>): Promise<{ state: State; revision: number }> {
    return this.aggregates.state(streamName, decider);
  }

  /** The current state and every event it was folded from: for readers of the history itself. */
  load<State, Event extends DomainEvent<string, object>>(streamName: string, decider: Folding<State, Event>): Promise<{ state: State; events: Event[] }> {
    return this.aggregates.history(streamName, decider);
  }

  /**
   * Whether a stream has any event (e.g. an organization exists): its last revision looked up,
   * no event read or opened (an item's first event holds its whole content, sealed personal data
   * included).
   */
  async exists(streamName: string): Promise<boolean> {
    return (await this.events.lastRevision(streamName)) !== undefined;
  }

  /** Forgets the states cached in this process (after an erasure). */
  forgetCached(): void {
    this.aggregates.forgetCached();
  }

  /**
   * Appends domain events outside a decider, where nothing is decided (reactors' records, imports):
   * stamped with ids and metadata, optionally with ids derived from their cause so that a re-run
   * appends nothing new.
   */
  record(
    streamName: string,
    events: readonly DomainEvent<string, object>[],
    context: CommandContext,
    expected: ExpectedRevision,
    eventIds?: (event: DomainEvent<string, object>, index: number) => string,
  ): Promise<AppendResult> {
    return this.events.append(streamName, stampEvents(events, context, { clock: this.clock, ids: this.ids }, eventIds), expected);
  }

  newId(prefix: string, bytes = 12): string {
    return prefix + this.ids.token(bytes);
  }
}
