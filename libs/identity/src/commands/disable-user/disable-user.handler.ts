import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { userStream } from '../../domain/identity.streams.js';
import { userDecider } from '../../domain/user.decider.js';
import { LastAdminSafeguard } from '../../last-admin-safeguard.js';
import { DisableUserCommand } from './disable-user.command.js';

@CommandHandler(DisableUserCommand)
export class DisableUserHandler implements ICommandHandler<DisableUserCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly lastAdmin: LastAdminSafeguard,
  ) {}

  async execute(command: DisableUserCommand): Promise<boolean> {
    if (command.options.keepLastAdmin && (await this.lastAdmin.isLastActiveAdmin(command.orgId, command.userId))) return false;
    await this.lastAdmin.check(command.orgId, command.userId, command.context, 'disabled');
    await this.aggregates.handle(userStream(command.orgId, command.userId), userDecider, { type: 'DisableUser', orgId: command.orgId }, command.context);
    return true;
  }
}
