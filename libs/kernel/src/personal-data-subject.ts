/**
 * Whose data key seals a piece of personal data (DESIGN.md section 3). One form everywhere, so
 * that forgetting a user's key erases what they submitted, reported and appealed alike.
 */
export const userSubject = (user: { readonly typeId: string; readonly id: string }): string => `${user.typeId}:${user.id}`;

/** The user a `userSubject` names (its type id holds no `:`, being a checked id). */
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

/** What a projection reads of SUBJECT_ERASED_EVENT: whose data is gone. */
export interface SubjectErasedData {
  readonly subject: string;
}
