import { Query } from '@nestjs/cqrs';
import type { Penalty } from '../../domain/catalog.model.js';

/** A policy with exactly the fields of docs/configuration-as-code.md, "The read endpoints". */
export interface PolicyView {
  id: string;
  name: string;
  parentId: string | null;
  policyText: string | null;
  enforcementGuidelines: string | null;
  policyType: string | null;
  semanticVersion: number;
  userStrikeCount: number;
  applyUserStrikeCountConfigToChildren: boolean;
  penalty: Penalty;
}

export class ListPoliciesQuery extends Query<PolicyView[]> {
  constructor(readonly orgId: string) {
    super();
  }
}
