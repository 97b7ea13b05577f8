import { Query } from '@nestjs/cqrs';

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
 * by type and id, or the item a report, a review job or a callback delivery is about.
 */
export class FindInvestigationQuery extends Query<InvestigationTarget> {
  constructor(
    readonly orgId: string,
    readonly kind: LookupKind,
    readonly id: string,
    readonly typeId: string | undefined,
  ) {
    super();
  }
}
