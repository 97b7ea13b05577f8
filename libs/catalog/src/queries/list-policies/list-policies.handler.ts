import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CatalogReader } from '../catalog-reader.js';
import { ListPoliciesQuery, type PolicyView } from './list-policies.query.js';

@QueryHandler(ListPoliciesQuery)
export class ListPoliciesHandler implements IQueryHandler<ListPoliciesQuery> {
  constructor(private readonly catalog: CatalogReader) {}

  async execute(query: ListPoliciesQuery): Promise<PolicyView[]> {
    return (await this.catalog.live(query.orgId, 'policy')).map(({ entity: p, semanticVersion }) => ({
      id: p.id,
      name: p.name,
      parentId: p.parentId,
      policyText: p.policyText,
      enforcementGuidelines: p.enforcementGuidelines,
      policyType: p.policyType,
      semanticVersion,
      userStrikeCount: p.userStrikeCount,
      applyUserStrikeCountConfigToChildren: p.applyUserStrikeCountConfigToChildren,
      penalty: p.penalty,
    }));
  }
}
