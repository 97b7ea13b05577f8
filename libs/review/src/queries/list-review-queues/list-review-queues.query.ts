import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';

export interface ReviewQueueSummary {
  readonly id: string;
  readonly name: string;
  readonly order: 'FIFO' | 'PRIORITY';
  readonly lockTimeoutSeconds: number;
  /** The rest of the definition, so that the queue settings page can edit a queue without losing them. */
  readonly isDefault: boolean;
  readonly isAppealsDefault: boolean;
  readonly autoCloseAfterDays: number | null;
  /**
   * Where the queue is changed: `file` (the console refuses), `console` (made there, or the file
   * hands queues to the console with `management: { queues: console }`), `builtin` (not declared).
   */
  readonly managedBy: 'file' | 'console' | 'builtin';
  /** The configuration file that defined it last, where recorded; null otherwise. */
  readonly file: string | null;
  /** Waiting for a moderator: PENDING (counted up to COUNTED_JOBS), ASSIGNED, and LOCKED with an expired lock. */
  readonly pending: number;
  /** False when more PENDING jobs wait than were counted: `pending` is a lower bound. */
  readonly pendingExact: boolean;
  /** Held under a live lock. */
  readonly locked: number;
  /** When the oldest waiting job opened; null when none waits. */
  readonly oldestPendingAt: string | null;
  readonly oldestPendingAgeSeconds: number | null;
}

/** The organization's queues the viewer may see (child-safety only with VIEW_CHILD_SAFETY_DATA), with their load. */
export class ListReviewQueuesQuery extends Query<ReviewQueueSummary[]> {
  constructor(
    readonly orgId: string,
    readonly viewer: { readonly permissions: readonly Permission[] },
  ) {
    super();
  }
}
