import type { DomainEvent, RecordedEvent, RecordedOf } from '#warden/kernel';
import type { ReadDocument } from '#warden/readstore';
import type { KeyedLimits } from './keyed-scheduler.js';

/**
 * A projection's view of the read store during one batch: reads see the batch's own writes,
 * and everything is committed together with the checkpoint.
 */
export interface ProjectionContext {
  get<T extends object = ReadDocument>(collection: string, id: string): Promise<T | undefined>;
  put(collection: string, id: string, doc: ReadDocument): void;
  delete(collection: string, id: string): void;
  /**
   * Whether the document exists as an event before the one being applied left it: what "record
   * once" checks (a statement, an appeal counted once). False when it is absent, and when this
   * very event wrote it (or a later one): a redelivery after a commit that landed only part of a
   * batch's writes (MongoDB writes collection by collection) must still make the event's other
   * writes, each guarded by its document's position, instead of returning because one exists.
   */
  writtenBefore(collection: string, id: string): Promise<boolean>;
}

export interface Projection {
  /** Stable name: the checkpoint's key. */
  readonly name: string;
  /** Collections it owns; a rebuild empties them. */
  readonly collections: readonly string[];
  /** Event types it applies; others only move the checkpoint. */
  readonly eventTypes: readonly string[];
  apply(event: RecordedEvent, ctx: ProjectionContext): Promise<void> | void;
  /**
   * Optional: handles a whole batch of wanted events at once (e.g. concurrently); when present
   * the runner calls it instead of `apply`. Only for projections without read models (reactors):
   * per-document redelivery guards need each write tied to its own event, which `apply` gives.
   */
  applyBatch?(events: readonly RecordedEvent[], ctx: ProjectionContext): Promise<void>;
  /**
   * A reactor turns events into further commands rather than a read model: it keeps a
   * checkpoint like a projection but is never replayed by a read-model rebuild.
   */
  readonly reactor?: boolean;
  /**
   * Reactors: what orders its events, the organization first (`orderingKey`). A key's queued
   * events are handled as one run at a time, in log order (KeyedLanes): by `applyBatch` where the
   * reactor has it (so it may queue their commands together), else by `apply` one after the other.
   * Different keys and organizations run at once, and the runner reads ahead instead of waiting
   * for a batch, so one key's backlog delays no other (KeyedScheduler).
   */
  keyOf?(event: RecordedEvent): string;
  /**
   * With `keyOf`: whose turn the event's key takes within its organization, when keys come in
   * groups that must share (the evaluation's keys are items, its groups their users: one user's
   * flood of items then takes one turn in the round-robin, not one per item). Each key is its own
   * group without it. Ordering stays by key.
   */
  groupOf?(event: RecordedEvent): string;
  /** With `keyOf`: how much runs and waits at once (DEFAULT_KEYED_LIMITS otherwise). */
  readonly limits?: Partial<KeyedLimits>;
  /**
   * Reactors: called when this process starts running it (at start-up, or on taking over its
   * lease from another worker), before events flow.
   */
  activate?(): Promise<void> | void;
  /** Reactors: called once it has stopped running in this process (shutdown, lease lost). */
  deactivate?(): Promise<void> | void;
  /** False when the projection never reads personal fields: its events are not decrypted. */
  readonly needsPersonalData?: boolean;
  /**
   * 'as-stored': the projection records evidence about the log itself (the audit chain). It reads
   * every event exactly as stored (personal fields sealed, at the schema version it was written,
   * whatever `eventTypes` says), and a read-model rebuild never empties it: rebuilding evidence
   * from the log would launder a change made to the log.
   */
  readonly log?: 'as-stored';
  /**
   * True: the projection applies every event of the log, whatever its type (`eventTypes` is then
   * ignored): an index over what events name, which must not miss a type added later. Read-model
   * projections only; an 'as-stored' projection reads every event anyway.
   */
  readonly everyEvent?: boolean;
  /**
   * True: a record kept for later reading (the audit trail), which may fall behind for a while.
   * While another projection or reactor of the process is far behind the log (a burst of
   * traffic), this one waits before each batch, a few seconds at most each time, so that queues,
   * rule actions and callbacks keep up first (ProjectionHost); it catches up once they have. An
   * explicit catch-up (a reader that needs it current) never waits.
   */
  readonly background?: boolean;
  /**
   * True: in a process that runs projections, this one runs on the read-model thread (a second
   * core), not beside the reactors and requests (docs/architecture.md, "The read-model thread").
   * For read models that no command or reactor reads caught up on its way: a catch-up asked for
   * on the main thread is passed to the thread and awaited, which costs a round trip.
   */
  readonly ownThread?: boolean;
  /**
   * Reactors: the earlier reactors whose work this one took over (a renamed or merged reactor).
   * Until it has a checkpoint of its own it starts from the earliest of theirs, so that nothing
   * one of them had not yet handled is skipped (loadCheckpoint), decided once, at its first start
   * (a predecessor may still run under its name, and move on); what they had handled, it may
   * handle again, so its effects must be idempotent (docs/operations.md, "Upgrading:
   * the actions reactor").
   */
  readonly succeeds?: readonly string[];
  /** The equality look-ups its readers make, served by indexes in every role. */
  readonly indexes?: ReadonlyArray<{ readonly collection: string; readonly fields: readonly string[] }>;
  /**
   * Indexes an earlier release declared and no query uses any more: dropped at start, since every
   * write still paid for them (docs/operations.md, "Read-model indexes"). Named, not inferred from
   * what is not declared: a process of an older release, or a newer one, must not drop what the
   * other declares.
   */
  readonly retiredIndexes?: ReadonlyArray<{ readonly collection: string; readonly fields: readonly string[] }>;
}

/**
 * A projection or reactor typed by the union of the events it applies (each declared once, in its
 * owner's contracts: docs/architecture.md, "Events"). The runner hands it only the types its
 * `eventTypes` names, upcast to their current shape, so it reads each event's data as its type
 * declares it, without casting. Not for projections that read every event (`everyEvent`, `log`).
 */
export interface EventProjection<E extends DomainEvent<string, object>> extends Omit<
  Projection,
  'eventTypes' | 'apply' | 'applyBatch' | 'keyOf' | 'groupOf' | 'everyEvent' | 'log'
> {
  readonly eventTypes: ReadonlyArray<E['type']>;
  apply(event: RecordedOf<E>, ctx: ProjectionContext): Promise<void> | void;
  applyBatch?(events: ReadonlyArray<RecordedOf<E>>, ctx: ProjectionContext): Promise<void>;
  keyOf?(event: RecordedOf<E>): string;
  groupOf?(event: RecordedOf<E>): string;
}

/**
 * The projection as the runner takes it. The one place an event's type stands for its data's
 * shape: the runner delivers only the types named in `eventTypes` (projection-runner.spec.ts).
 */
export function eventProjection<E extends DomainEvent<string, object>>(projection: EventProjection<E>): Projection {
  return projection as unknown as Projection;
}

export const PROJECTIONS = Symbol('Projections');

/** A reactor's ordering key (Projection.keyOf): the event's organization, then what orders it within the organization. */
export const orderingKey = (event: Pick<RecordedEvent, 'metadata'>, within: string): string => `${event.metadata.orgId}|${within}`;
