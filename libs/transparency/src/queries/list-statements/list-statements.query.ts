import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';
import type { DatabaseStatement } from '../../domain/statement-of-reasons.js';

/**
 * Where a statement is in its submission to the Transparency Database (docs/transparency.md,
 * "Submission"): `off` (no submission configured), `incomplete` (the mapping lacks something),
 * `unsent` (not in a batch yet), then its batch's state.
 */
export type SubmissionState = 'off' | 'incomplete' | 'unsent' | 'pending' | 'retrying' | 'submitted' | 'rejected' | 'abandoned';

export interface StatementSubmission {
  state: SubmissionState;
  batchId: string | null;
  /** Attempts of its batch so far. */
  attempts: number;
  /** The last failure or the refusal, as the Database or the network said it. */
  lastError: string | null;
  /** When the Database created it (or reported it had it already). */
  submittedAt: string | null;
  /** When its batch is tried next (pending, retrying). */
  nextAttemptAt: string | null;
}

/** A published action and its statement of reasons, with Warden's own bookkeeping around it. */
export interface StatementView {
  puid: string;
  /** The published action's delivery id (Warden's reference: its callback's). */
  deliveryId: string;
  decidedAt: string;
  trigger: 'rule' | 'decision' | 'strike-threshold' | 'post-actions';
  item: { id: string; typeId: string };
  actionId: string;
  policyIds: string[];
  /** In the Transparency Database's submission format; null when the mapping lacks something (`problems`). */
  statement: DatabaseStatement | null;
  problems: string[];
  /** The redress the affected user has (DSA Art. 17(3)(f)): not a Database attribute, stated to the user. */
  redress: string[];
  submission: StatementSubmission;
}

export interface StatementPage {
  from: string;
  to: string;
  statements: StatementView[];
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

/** Statements of an organization's restricting decisions over a period of days (raw query-string values). */
export class ListStatementsQuery extends Query<StatementPage> {
  constructor(
    readonly orgId: string,
    readonly from: unknown,
    readonly to: unknown,
    readonly limit: number,
    readonly cursor: string | undefined,
    /** The viewer's: without VIEW_CHILD_SAFETY_DATA, the statements of what a child-safety decision caused are left out. */
    readonly permissions: readonly Permission[],
  ) {
    super();
  }
}
