import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { userStream } from '../../domain/identity.streams.js';
import { userDecider } from '../../domain/user.decider.js';
import { LastAdminSafeguard } from '../../last-admin-safeguard.js';
import { ChangeUserRolesCommand } from './change-user-roles.command.js';

@CommandHandler(ChangeUserRolesCommand)
export class ChangeUserRolesHandler implements ICommandHandler<ChangeUserRolesCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly lastAdmin: LastAdminSafeguard,
  ) {}

  async execute(command: ChangeUserRolesCommand): Promise<void> {
    await this.lastAdmin.check(command.orgId, command.userId, command.context, command.roles);
    await this.aggregates.handle(
      userStream(command.orgId, command.userId),
      userDecider,
      { type: 'ChangeUserRoles', orgId: command.orgId, roles: command.roles },
      command.context,
    );
  }
}
