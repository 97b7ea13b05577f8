import type { DomainEvent } from '#warden/kernel';
import type { DatabaseStatement } from './statement-of-reasons.js';

/** A statement in a batch: its PUID and the published action it states (Warden's reference). */
export interface BatchedStatement {
  puid: string;
  deliveryId: string;
}

/**
 * Statements of reasons to submit together to the Transparency Database's multiple endpoint (at
 * most MAX_BATCH of them). `bodies` are what is sent, as rendered when the batch was formed: a
 * submitted statement is what was sent, whatever the mapping says later. They hold no personal data.
 */
export type StatementBatchRequested = DomainEvent<
  'StatementBatchRequested',
  { batchId: string; statements: BatchedStatement[]; bodies: DatabaseStatement[]; requestedAt: string; nextAttemptAt: string }
>;

/**
 * An attempt that created nothing: a failure to retry (`nextAttemptAt`; null when it was the last),
 * or the Database reporting that some PUIDs are there already (`alreadyInDatabase`: an earlier
 * attempt went through unrecorded), which leaves the others to send at once.
 */
export type StatementBatchAttemptFailed = DomainEvent<
  'StatementBatchAttemptFailed',
  {
    batchId: string;
    attempt: number;
    /** The Database's status; null when no response came. */
    status: number | null;
    error: string;
    retryAfterMs: number | null;
    alreadyInDatabase: string[];
    attemptedAt: string;
    nextAttemptAt: string | null;
  }
>;

/** The Database created the batch's statements (201), or had every one of them already. */
export type StatementBatchSubmitted = DomainEvent<
  'StatementBatchSubmitted',
  { batchId: string; attempt: number; status: number; alreadyInDatabase: string[]; submittedAt: string }
>;

/** The Database refused the batch's content (a 4xx other than authorization and throttling): resending it as it is cannot help. */
export type StatementBatchRejected = DomainEvent<
  'StatementBatchRejected',
  { batchId: string; attempt: number; status: number; error: string; rejectedAt: string }
>;

/** Every retry of the schedule failed. */
export type StatementBatchAbandoned = DomainEvent<'StatementBatchAbandoned', { batchId: string; attempts: number; reason: string; abandonedAt: string }>;

export type StatementBatchEvent =
  StatementBatchRequested | StatementBatchAttemptFailed | StatementBatchSubmitted | StatementBatchRejected | StatementBatchAbandoned;

export const STATEMENT_BATCH_EVENT_TYPES: ReadonlyArray<StatementBatchEvent['type']> = [
  'StatementBatchRequested',
  'StatementBatchAttemptFailed',
  'StatementBatchSubmitted',
  'StatementBatchRejected',
  'StatementBatchAbandoned',
];
