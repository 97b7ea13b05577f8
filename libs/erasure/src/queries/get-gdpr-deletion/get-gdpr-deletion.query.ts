import { Query } from '@nestjs/cqrs';
import type { ErasedCounts } from '../../domain/gdpr-deletion.events.js';

export interface GdprDeletionView {
  readonly requestId: string;
  readonly state: 'PENDING' | 'COMPLETED';
  readonly requestedAt: string;
  readonly completedAt: string | null;
  /** What was erased: all zero while pending. */
  readonly erased: Required<ErasedCounts>;
}

/** One GDPR deletion of the organization, from its stream (authoritative); not found otherwise. */
export class GetGdprDeletionQuery extends Query<GdprDeletionView> {
  constructor(
    readonly orgId: string,
    readonly requestId: string,
  ) {
    super();
  }
}
