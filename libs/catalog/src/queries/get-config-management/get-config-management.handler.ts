import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { AggregateStore, KEYRING, type Keyring } from '#warden/storage';
import { queueManagement, ssoManagement } from '../../domain/org-config.decider.js';
import { readOrgConfig } from '../../commands/org-config-state.js';
import { type ConfigManagement, GetConfigManagementQuery } from './get-config-management.query.js';

/**
 * Read from the configuration stream's cached state, the one the console's edits are decided on:
 * the badge and the refusal come from the same function, so the console never offers an edit the
 * decider then refuses (the catalog read model does not keep who defined what).
 */
@QueryHandler(GetConfigManagementQuery)
export class GetConfigManagementHandler implements IQueryHandler<GetConfigManagementQuery> {
  constructor(
    @Inject(KEYRING) private readonly keyring: Keyring,
    private readonly aggregates: AggregateStore,
  ) {}

  async execute(query: GetConfigManagementQuery): Promise<ConfigManagement> {
    const { state } = await readOrgConfig({ keyring: this.keyring, aggregates: this.aggregates }, query.orgId);
    const queues = Object.fromEntries(
      Object.keys(state.entities.queue).flatMap((id) => {
        const managed = queueManagement(state, id);
        return managed ? [[id, managed]] : [];
      }),
    );
    return { queues, sso: ssoManagement(state) };
  }
}
