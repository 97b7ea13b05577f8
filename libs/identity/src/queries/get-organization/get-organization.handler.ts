import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { notFound } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { IDENTITY_PROJECTION } from '../../projections/identity.projection.js';
import { ORGANIZATIONS, type OrganizationDoc } from '../../projections/identity.read-model.js';
import { GetOrganizationQuery, type OrganizationView } from './get-organization.query.js';

@QueryHandler(GetOrganizationQuery)
export class GetOrganizationHandler implements IQueryHandler<GetOrganizationQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: GetOrganizationQuery): Promise<OrganizationView> {
    let org = await this.readStore.get<OrganizationDoc>(ORGANIZATIONS, query.orgId);
    if (!org) {
      await this.projections.catchUp(IDENTITY_PROJECTION);
      org = await this.readStore.get<OrganizationDoc>(ORGANIZATIONS, query.orgId);
    }
    if (!org) throw notFound(`No organization ${query.orgId}`);
    return { id: org.id, name: org.name, createdAt: org.createdAt };
  }
}
