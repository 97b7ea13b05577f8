import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type EventStore, handleCommand } from '../../../../eventstore/src/index.js';
import type { Clock, IdGenerator } from '../../../../kernel/src/index.js';
import { CLOCK, EVENT_STORE, ID_GENERATOR } from '../../../../platform/src/index.js';
import { organizationStream } from '../../domain/identity.streams.js';
import { organizationDecider } from '../../domain/organization.decider.js';
import { CreateOrganizationCommand } from './create-organization.command.js';

@CommandHandler(CreateOrganizationCommand)
export class CreateOrganizationHandler implements ICommandHandler<CreateOrganizationCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async execute(command: CreateOrganizationCommand): Promise<{ orgId: string; name: string }> {
    const { events } = await handleCommand(
      { events: this.events, clock: this.clock, ids: this.ids },
      organizationStream(command.orgId),
      organizationDecider,
      { type: 'CreateOrganization', orgId: command.orgId, name: command.name },
      command.context,
    );
    return { orgId: command.orgId, name: events[0]!.data.name };
  }
}
