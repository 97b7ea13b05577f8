import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { organizationStream } from '../../domain/identity.streams.js';
import { organizationDecider } from '../../domain/organization.decider.js';
import { ConfigureOrganizationCommand } from './configure-organization.command.js';

@CommandHandler(ConfigureOrganizationCommand)
export class ConfigureOrganizationHandler implements ICommandHandler<ConfigureOrganizationCommand> {
  constructor(private readonly aggregates: AggregateStore) {}

  async execute(command: ConfigureOrganizationCommand): Promise<{ created: boolean; renamed: boolean }> {
    const decision = { type: 'ConfigureOrganization' as const, orgId: command.orgId, name: command.name };
    const stream = organizationStream(command.orgId);
    const events = command.dryRun
      ? organizationDecider.decide(decision, await this.aggregates.state(stream, organizationDecider))
      : (await this.aggregates.handle(stream, organizationDecider, decision, command.context)).events;
    return {
      created: events.some((e) => e.type === 'OrganizationCreated'),
      renamed: events.some((e) => e.type === 'OrganizationRenamed'),
    };
  }
}
