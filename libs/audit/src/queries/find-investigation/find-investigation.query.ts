import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';

export const LOOKUP_KINDS = ['item', 'user', 'report', 'job', 'delivery'] as const;
export type LookupKind = (typeof LOOKUP_KINDS)[number];

/** Where a lookup lands: an item's page, or a user's (an item of a USER type). */
export interface InvestigationTarget {
  kind: 'item' | 'user';
  typeId: string;
  id: string;
}

/**
 * Finds what an id names in the organization (docs/console.md, "Investigate"): an item or a user
 * by type and id, or the item a report, a review job or a callback delivery is about. A job of
 * the child-safety queue is not found without VIEW_CHILD_SAFETY_DATA (`permissions`: the session's).
 */
export class FindInvestigationQuery extends Query<InvestigationTarget> {
  constructor(
    readonly orgId: string,
    readonly kind: LookupKind,
    readonly id: string,
    readonly typeId: string | undefined,
    readonly permissions: readonly Permission[],
  ) {
    super();
  }
}
