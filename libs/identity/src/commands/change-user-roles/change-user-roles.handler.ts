import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { userStream } from '../../domain/identity.streams.js';
import { userDecider } from '../../domain/user.decider.js';
import { ChangeUserRolesCommand } from './change-user-roles.command.js';

@CommandHandler(ChangeUserRolesCommand)
export class ChangeUserRolesHandler implements ICommandHandler<ChangeUserRolesCommand> {
  constructor(private readonly aggregates: AggregateStore) {}

  async execute(command: ChangeUserRolesCommand): Promise<void> {
    await this.aggregates.handle(
      userStream(command.orgId, command.userId),
      userDecider,
      { type: 'ChangeUserRoles', orgId: command.orgId, roles: command.roles },
      command.context,
    );
  }
}
