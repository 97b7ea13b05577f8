import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetOrganizationQuery } from '#warden/identity';
import { ProjectionHost } from '#warden/storage';
import { withOrgSettingsDefaults } from '../../domain/org-settings.upcasters.js';
import { CATALOG_PROJECTION } from '../../projections/catalog.projection.js';
import { CatalogReader } from '../catalog-reader.js';
import { type ConsoleSettings, GetConsoleSettingsQuery } from './get-console-settings.query.js';

@QueryHandler(GetConsoleSettingsQuery)
export class GetConsoleSettingsHandler implements IQueryHandler<GetConsoleSettingsQuery> {
  constructor(
    private readonly catalog: CatalogReader,
    private readonly queries: QueryBus,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: GetConsoleSettingsQuery): Promise<ConsoleSettings> {
    await this.projections.catchUp(CATALOG_PROJECTION);
    const [org, recorded] = await Promise.all([this.queries.execute(new GetOrganizationQuery(query.orgId)), this.catalog.settings(query.orgId, 'settings')]);
    // An organization whose configuration was never applied has every setting at its default.
    const settings = recorded ?? withOrgSettingsDefaults({});
    return {
      org: { id: org.id, name: org.name },
      requireDecisionReason: settings.requireDecisionReason,
      requirePolicyForDecisions: settings.requirePolicyForDecisions,
      wellness: settings.wellness,
    };
  }
}
