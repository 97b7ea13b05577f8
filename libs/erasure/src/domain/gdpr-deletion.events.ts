import type { DomainEvent } from '#warden/kernel';

/** The customer's opaque ids of a user (an item of a USER item type): no personal data. */
export interface ErasedUser {
  id: string;
  typeId: string;
}

/** What a deletion erased: how many of each thing sealed under the user's key, and the jobs it closed. */
export interface ErasedCounts {
  /** Data keys forgotten (the user's subject has one key once anything of theirs was sealed). */
  dataKeys: number;
  /** Items the user submitted or that are about them (their user item): their data is unreadable. */
  items: number;
  /** Reports the user filed: their reasons and context items are unreadable. */
  reports: number;
  /** Appeals the user submitted: their reasons and the data they sent are unreadable. */
  appeals: number;
  /** Open review jobs of the user's items, closed with AUTOMATIC_CLOSE (USER_ERASED). */
  reviewJobsClosed: number;
  /** The same person's console account (named by `consoleEmail`): disabled, its email erased. 0 or 1; absent on older events. */
  consoleAccounts?: number;
}

export type GdprDeletionRequested = DomainEvent<
  'GdprDeletionRequested',
  /** `consoleUserId`: the same person's console account, when the request named it (absent on older events). */
  { requestId: string; user: ErasedUser; subject: string; consoleUserId?: string | null; requestedAt: string }
>;

/** `subject` is read by the projections that purge their copies (SUBJECT_ERASED_EVENT). */
export type GdprDeletionCompleted = DomainEvent<
  'GdprDeletionCompleted',
  { requestId: string; user: ErasedUser; subject: string; consoleUserId?: string | null; erased: ErasedCounts; completedAt: string }
>;

export type GdprDeletionEvent = GdprDeletionRequested | GdprDeletionCompleted;
