import { Query } from '@nestjs/cqrs';

export interface OrganizationView {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
}

export class GetOrganizationQuery extends Query<OrganizationView> {
  constructor(readonly orgId: string) {
    super();
  }
}
