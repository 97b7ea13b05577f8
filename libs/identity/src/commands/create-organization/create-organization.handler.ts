import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { organizationStream } from '../../domain/identity.streams.js';
import { organizationDecider } from '../../domain/organization.decider.js';
import { CreateOrganizationCommand } from './create-organization.command.js';

@CommandHandler(CreateOrganizationCommand)
export class CreateOrganizationHandler implements ICommandHandler<CreateOrganizationCommand> {
  constructor(private readonly aggregates: AggregateStore) {}

  async execute(command: CreateOrganizationCommand): Promise<{ orgId: string; name: string }> {
    const { events } = await this.aggregates.handle(
      organizationStream(command.orgId),
      organizationDecider,
      { type: 'CreateOrganization', orgId: command.orgId, name: command.name },
      command.context,
    );
    return { orgId: command.orgId, name: events[0]!.data.name };
  }
}
