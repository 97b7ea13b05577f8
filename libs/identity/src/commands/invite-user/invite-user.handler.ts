import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type Clock, conflict } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { userStream } from '../../domain/identity.streams.js';
import { hashInvitationToken, INVITATION_TTL_MS, newInvitationToken } from '../../domain/invitation-token.js';
import { checkedRoles, userDecider } from '../../domain/user.decider.js';
import { checkedEmail } from '../../domain/user-email.js';
import { UserDirectory } from '../../user-directory.js';
import { CreateUserCommand } from '../create-user/create-user.command.js';
import { type Invitation, InviteUserCommand } from './invite-user.command.js';

@CommandHandler(InviteUserCommand)
export class InviteUserHandler implements ICommandHandler<InviteUserCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly commands: CommandBus,
    private readonly users: UserDirectory,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: InviteUserCommand): Promise<Invitation> {
    const { orgId, context } = command;
    const email = checkedEmail(command.email);
    if (command.roles.length > 0) checkedRoles(command.roles);
    // Only this organization's user of the address counts: one of another organization changes
    // nothing in the answer (docs/console-access.md, "Users (permission `MANAGE_USERS`: ADMIN)"), and the conflict waits for the acceptance.
    const existing = await this.users.findInOrganization(orgId, email);
    let userId: string;
    if (existing === null) {
      ({ userId } = await this.commands.execute(new CreateUserCommand(orgId, email, command.roles, context, { state: 'invited' })));
    } else if (existing.state !== 'invited') {
      throw conflict(`${email} already has an account (${existing.state}); no invitation is needed`);
    } else {
      userId = existing.userId;
      if (command.roles.length > 0)
        await this.aggregates.handle(userStream(orgId, userId), userDecider, { type: 'ChangeUserRoles', orgId, roles: command.roles }, context);
    }
    const token = newInvitationToken(orgId, userId);
    const expiresAt = new Date(this.clock.now().getTime() + INVITATION_TTL_MS).toISOString();
    await this.aggregates.handle(
      userStream(orgId, userId),
      userDecider,
      { type: 'InviteUser', orgId, tokenHash: hashInvitationToken(token), expiresAt },
      context,
    );
    return { userId, token, expiresAt };
  }
}
