/** JSON values only: event data must survive a round trip through any store unchanged. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface EventMetadata {
  readonly orgId: string;
  readonly correlationId: string;
  readonly causationId: string | null;
  readonly actor: string;
  /** ISO 8601 timestamp. */
  readonly occurredAt: string;
  readonly schemaVersion: number;
  /** Set on read when the subject's data key was forgotten and personal fields were removed. */
  readonly personalDataRedacted?: boolean;
}

export interface NewEvent<D extends object = JsonObject> {
  readonly id: string;
  readonly type: string;
  readonly data: D;
  readonly metadata: EventMetadata;
}

export interface RecordedEvent<D extends object = JsonObject> extends NewEvent<D> {
  readonly streamName: string;
  /** Position of the event in its stream, from 0. */
  readonly revision: number;
  /** Position of the event in the whole log; strictly increasing in log order. */
  readonly position: number;
}

/** A domain event before it is stamped with id and metadata by the command handler. */
export interface DomainEvent<T extends string = string, D extends object = JsonObject> {
  readonly type: T;
  readonly data: D;
}

/**
 * A recorded event of the union E, its `type` and `data` those of one of E's members: what a
 * reader that names E's types is handed (upcast to their current shape; personal fields of an
 * erased subject read as null). Projections are typed by it (`EventProjection` in the event
 * store), so that they read their events' data without casting it (docs/architecture.md, "Events").
 */
export type RecordedOf<E extends DomainEvent<string, object>> =
  E extends DomainEvent<infer T, infer D> ? Omit<RecordedEvent, 'type' | 'data'> & { readonly type: T; readonly data: D } : never;

/**
 * The event as one of the types of E declares it, when it is of one of `types` (else undefined):
 * for readers that are handed any event (a stream read, a command carrying an event). Its writer
 * and the upcasters guarantee the shape of a type's data; this is where a type stands for it.
 */
export function recordedAs<E extends DomainEvent<string, object>>(event: RecordedEvent, ...types: ReadonlyArray<E['type']>): RecordedOf<E> | undefined {
  return types.includes(event.type) ? (event as unknown as RecordedOf<E>) : undefined;
}

/** Who or what caused a command: correlation for tracing, actor for the audit trail. */
export interface CommandContext {
  readonly orgId: string;
  readonly correlationId: string;
  readonly causationId?: string | null;
  readonly actor: string;
}
