import { CommandBus, CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { normalizeEmail } from '../../domain/user-email.js';
import { type ExistingUser, planUsers } from '../../domain/users-plan.js';
import { ListUsersQuery } from '../../queries/list-users/list-users.query.js';
import { UserDirectory } from '../../user-directory.js';
import { ChangeUserRolesCommand } from '../change-user-roles/change-user-roles.command.js';
import { CreateUserCommand } from '../create-user/create-user.command.js';
import { DisableUserCommand } from '../disable-user/disable-user.command.js';
import { ApplyUsersCommand, type UsersApplyReport } from './apply-users.command.js';

@CommandHandler(ApplyUsersCommand)
export class ApplyUsersHandler implements ICommandHandler<ApplyUsersCommand> {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly directory: UserDirectory,
  ) {}

  async execute(command: ApplyUsersCommand): Promise<UsersApplyReport> {
    const { orgId, context, options } = command;
    const { existing, erased } = await this.existingUsers(command);
    const plan = planUsers(orgId, command.users, existing, options.prune, erased);
    if (!options.dryRun) {
      for (const u of plan.create) await this.commands.execute(new CreateUserCommand(orgId, u.email, u.roles, context, { state: 'invited' }));
      for (const u of plan.updateRoles) await this.commands.execute(new ChangeUserRolesCommand(orgId, u.userId, u.roles, context));
      for (const u of plan.disable) await this.commands.execute(new DisableUserCommand(orgId, u.userId, context));
    }
    return {
      created: plan.create.map((u) => u.email),
      updated: plan.updateRoles.map((u) => u.email),
      disabled: plan.disable.map((u) => u.email),
      leftAlone: plan.leftAlone,
      stillDisabled: plan.stillDisabled,
    };
  }

  /**
   * The organization's users, and the holders of the file's addresses elsewhere in the
   * deployment. Each is read from the log (the read model only says who to look at), so a user
   * created or changed a moment ago is planned for as it is. `erased`: the file's addresses whose
   * holder's email reads null, erased by a GDPR deletion (the address stays claimed).
   */
  private async existingUsers(command: ApplyUsersCommand): Promise<{ existing: ExistingUser[]; erased: Set<string> }> {
    const listed = await this.queries.execute(new ListUsersQuery(command.orgId));
    const [members, holders] = await Promise.all([
      Promise.all(listed.map((u) => this.directory.get(command.orgId, u.id))),
      Promise.all(command.users.map((u) => this.directory.findByEmail(u.email))),
    ]);
    const byId = new Map<string, ExistingUser>();
    for (const user of [...members, ...holders]) {
      if (user) byId.set(user.userId, { id: user.userId, orgId: user.orgId, email: user.email, roles: user.roles, state: user.state });
    }
    const erased = new Set(command.users.flatMap((u, i) => (holders[i] && holders[i].email === null ? [normalizeEmail(u.email)] : [])));
    return { existing: [...byId.values()], erased };
  }
}
