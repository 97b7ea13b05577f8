import type { JsonObject } from './events.js';

/**
 * Whose data key seals a piece of personal data (docs/architecture.md, "Personal data"). One form everywhere, so
 * that forgetting a user's key erases what they submitted, reported and appealed alike.
 */
export const userSubject = (user: { readonly typeId: string; readonly id: string }): string => `${user.typeId}:${user.id}`;

/** The user a `userSubject` names (its type id holds no `:`: apply refuses one, docs/configuration-as-code.md). */
export const userOfSubject = (subject: string): { typeId: string; id: string } => {
  const at = subject.indexOf(':');
  return { typeId: subject.slice(0, at), id: subject.slice(at + 1) };
};

/** An item's data belongs to its creator; to the item itself when it is a user or has no creator. */
export const itemSubject = (item: { readonly typeId: string; readonly id: string }, creator: { readonly typeId: string; readonly id: string } | null): string =>
  userSubject(creator ?? item);

/**
 * Recorded once a subject's data keys were forgotten (a GDPR deletion completed). Read models
 * that copied the subject's personal fields in plaintext purge them when they apply it; the type
 * lives here so that they need not depend on the module that records it.
 */
export const SUBJECT_ERASED_EVENT = 'GdprDeletionCompleted';

/**
 * Recorded when a GDPR deletion is requested, before any key is forgotten. Read models that copy
 * a console account's email purge it when they apply this (`consoleUserId`): the eraser catches
 * them up before it forgets the keys and truncates the log's WAL, so no old copy survives in the
 * data files.
 */
export const SUBJECT_ERASURE_REQUESTED_EVENT = 'GdprDeletionRequested';

/** What a projection reads of SUBJECT_ERASED_EVENT (and SUBJECT_ERASURE_REQUESTED_EVENT): whose data is going. */
export interface SubjectErasedData {
  readonly subject: string;
  /** The same person's console account, whose email was forgotten too (absent: none). */
  readonly consoleUserId?: string | null;
}

/**
 * What an erasure event (SUBJECT_ERASURE_REQUESTED_EVENT or SUBJECT_ERASED_EVENT) says of whose
 * data goes; undefined for any other event. The read models that purge their copies read it here,
 * without depending on the module that records it.
 */
export function subjectErasureOf(event: { readonly type: string; readonly data: object }): SubjectErasedData | undefined {
  return event.type === SUBJECT_ERASED_EVENT || event.type === SUBJECT_ERASURE_REQUESTED_EVENT ? (event.data as SubjectErasedData) : undefined;
}

/**
 * The reasons of a decision's report history (`[{ reason, reporter }]`, wherever it is copied: the
 * decision's action callback, the delivery's body) as personal-data parts: each reason is its
 * reporter's, sealed under their key whoever's event holds it (docs/gdpr.md). `path` is where the
 * history is inside the event's data.
 */
export function reportReasonParts(
  history: unknown,
  path: readonly (string | number)[],
): Array<{ path: Array<string | number>; subject: string; fields: string[] }> {
  if (!Array.isArray(history)) return [];
  return history.flatMap((entry: unknown, i) => {
    const reporter = typeof entry === 'object' && entry !== null ? (entry as { reporter?: { id?: unknown; typeId?: unknown } }).reporter : undefined;
    if (typeof reporter?.id !== 'string' || typeof reporter.typeId !== 'string') return [];
    return [{ path: [...path, i], subject: userSubject({ typeId: reporter.typeId, id: reporter.id }), fields: ['reason'] }];
  });
}

/**
 * A console user's email copied into someone else's event (the deciding moderator's, in a
 * decision's callback, its delivery's body, a child-safety report) as a personal-data part: sealed
 * under the console user's key (their id, as identity seals their account's email), so that
 * erasing their console account reaches this copy too (docs/gdpr.md). `path` is the object that
 * holds `field`; none when the user is not named (an event recorded before it was).
 */
export function consoleUserParts(
  userId: unknown,
  path: readonly (string | number)[],
  field: string,
): Array<{ path: Array<string | number>; subject: string; fields: string[] }> {
  return typeof userId === 'string' && userId !== '' ? [{ path: [...path], subject: userId, fields: [field] }] : [];
}

/**
 * An object inside an event's data that holds another person's fields than the event's subject
 * (a reporter's reason copied into a decision about someone else's item): sealed under that
 * person's key, in place, so that erasing them reaches this copy too (docs/gdpr.md).
 */
export interface PersonalDataPart {
  /** Where the object is inside `data`: keys and array indices, from the top (never empty: the top level holds the event's own envelope). */
  readonly path: readonly (string | number)[];
  /** Whose the fields are. */
  readonly subject: string;
  /** Fields of that object that are personal. */
  readonly fields: readonly string[];
}

/**
 * Which fields of an event type are personal data and whose they are. The module that owns the
 * event type declares its rule beside the type, in its contracts (`PersonalDataRules`), and
 * registers it with the event store's PersonalDataPolicy before the first such event is written
 * (docs/architecture.md, "Personal data"). Framework-free, so that contracts can declare it.
 */
export interface PersonalDataRule {
  /** The subject (user) the personal fields belong to; undefined when the event has none. */
  subject(event: { readonly data: JsonObject }): string | undefined;
  /** Top-level fields of `data` that are personal. */
  readonly fields: readonly string[];
  /**
   * Other people's fields inside the event (each sealed under their own key before the event's
   * own fields are sealed around them). Called on the event as written, and on the event as read
   * once its own fields are opened, to find the parts again: the paths must not depend on the
   * parts' sealed fields.
   */
  parts?(event: { readonly data: JsonObject }): readonly PersonalDataPart[];
}

/** A module's personal-data rules, by the event type they cover (only the types it owns). */
export type PersonalDataRules = Readonly<{ [eventType: string]: PersonalDataRule }>;

/** The usual subject: the event's `subject` field, when it names one. */
export const subjectField = (event: { readonly data: JsonObject }): string | undefined =>
  typeof event.data['subject'] === 'string' ? event.data['subject'] : undefined;
