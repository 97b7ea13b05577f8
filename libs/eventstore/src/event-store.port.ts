import type { NewEvent, RecordedEvent } from '#warden/kernel';

/** `no_stream`: the stream must not exist; `any`: no check; a number: the stream's last revision. */
export type ExpectedRevision = 'no_stream' | 'any' | number;

export interface AppendResult {
  /** Revision of the last event appended. */
  readonly nextRevision: number;
  /** Log position of the last event appended. */
  readonly position: number;
}

export interface ReadStreamOptions {
  /** Forwards: the first revision read (default 0). Backwards: the newest read (default the stream's last). */
  readonly fromRevision?: number;
  readonly maxCount?: number;
  /**
   * Backwards: newest first, from `fromRevision` down. For readers of a stream's newest part only
   * (a mass-reported job's newest reports, JobReports), so that they cost what they list.
   */
  readonly backwards?: boolean;
}

export interface ReadAllOptions {
  /** Events strictly after this position; omit to start at the beginning of the log. */
  readonly after?: number;
  readonly maxCount?: number;
  /**
   * The event types the reader will look at. An adapter may leave the others out (the embedded
   * one filters in the database) or deliver them undecoded, e.g. with their personal data sealed.
   */
  readonly eventTypes?: readonly string[];
  /** False: the reader never looks at personal fields, so they may stay sealed. */
  readonly personalData?: boolean;
}

export interface SubscribeOptions {
  /** Last position already handled (the checkpoint); omit to start at the beginning. */
  readonly after?: number;
  /**
   * Called with consecutive events in log order; the next batch is delivered only after the
   * promise settles. A rejected promise stops the subscription and reaches `onError`.
   * `through`, when given, is the log position the batch accounts for: the events left out
   * (other types, see `eventTypes`) up to there need no handling, so a checkpoint may move to
   * it. A batch may then be empty: nothing of interest up to `through`.
   */
  readonly onEvents: (events: readonly RecordedEvent[], through?: number) => Promise<void>;
  /** As in ReadAllOptions: the types the subscriber looks at. */
  readonly eventTypes?: readonly string[];
  /** As in ReadAllOptions. */
  readonly personalData?: boolean;
  /** Called once the catch-up phase reached the head of the log. */
  readonly onCaughtUp?: () => void;
  readonly onError?: (error: unknown) => void;
}

export interface GroupSubscribeOptions {
  /** The consumer group: its members share its events; the server keeps the group's checkpoint. */
  readonly group: string;
  /** The types the group receives (filtered on the server). */
  readonly eventTypes: readonly string[];
  /** As in ReadAllOptions. */
  readonly personalData?: boolean;
  /** Where a group created now starts: after this position (e.g. a checkpoint kept before); default the start of the log. */
  readonly startAfter?: number;
  /**
   * Called with a batch of this member's share, not necessarily in log order, possibly again
   * after a failure anywhere (at least once). Resolving acknowledges the batch; rejecting hands
   * it back to the group for a retry (reported through `onRetry`), after a pause that grows while
   * batches keep failing; rejecting with EventsFailedError hands back only the events it names and
   * acknowledges the others. Batches may overlap: the next can come before the previous one
   * settled (up to the member's buffer of unacknowledged events).
   */
  readonly onEvents: (events: readonly RecordedEvent[]) => Promise<void>;
  readonly onRetry?: (error: unknown) => void;
  /** The subscription dropped (the server went away, the group was deleted): nothing more arrives. */
  readonly onError?: (error: unknown) => void;
}

export interface Subscription {
  /** Stops delivery; resolves after the event being handled (if any) is done. */
  stop(): Promise<void>;
}

export interface EventStore {
  /** Appends atomically: all events or none. Throws WrongExpectedRevisionError on conflict. */
  append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events of a stream in order; an empty array when the stream does not exist. */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /**
   * The revision of the stream's last event; undefined when the stream does not exist. Reads and
   * opens no event (no payload parsed, no personal data opened): for readers that only ask whether
   * a stream exists, many at a time (a bulk action's preview of 10,000 items).
   */
  lastRevision(streamName: string): Promise<number | undefined>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up then live, at least once, in log order. */
  subscribeToAll(options: SubscribeOptions): Subscription;
  /**
   * Competing consumers with a checkpoint kept by the server (KurrentDB persistent subscriptions
   * to `$all`). Optional: where it is missing, processes share work through leases instead.
   */
  subscribeToGroup?(options: GroupSubscribeOptions): Subscription;
  /**
   * With subscribeToGroup: the position up to which the group's checkpoint says every event was
   * handled; undefined when the group does not exist.
   */
  groupCheckpoint?(group: string): Promise<number | undefined>;
  /** Position of the last event in the log (0 when empty). */
  headPosition(): Promise<number>;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EventStore');

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Stream ${streamName}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/**
 * Some events of a consumer group's batch failed (GroupSubscribeOptions.onEvents): only these
 * (by event id) go back to the group for a retry; the batch's other events were handled.
 */
export class EventsFailedError extends Error {
  constructor(
    readonly eventIds: ReadonlySet<string>,
    cause: unknown,
  ) {
    super(`${eventIds.size} event(s) of the batch failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'EventsFailedError';
  }
}

/** The store could not be reached or refused to work (start-up fails with this). */
export class EventStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventStoreUnavailableError';
  }
}
