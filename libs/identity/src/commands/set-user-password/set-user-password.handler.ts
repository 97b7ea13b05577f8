import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { notFound } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { registryContext, userEmailStream, userStream } from '../../domain/identity.streams.js';
import { checkedPassword } from '../../domain/password-policy.js';
import { userDecider, userEmailDecider } from '../../domain/user.decider.js';
import { PasswordHashing } from '../../password-hashing.js';
import { SetUserPasswordCommand } from './set-user-password.command.js';

@CommandHandler(SetUserPasswordCommand)
export class SetUserPasswordHandler implements ICommandHandler<SetUserPasswordCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly passwords: PasswordHashing,
  ) {}

  async execute(command: SetUserPasswordCommand): Promise<void> {
    const { orgId, userId, context } = command;
    const stream = userStream(orgId, userId);
    const user = await this.aggregates.state(stream, userDecider);
    if (user === null || user.orgId !== orgId) throw notFound('No such user');
    // The user's own address is among the words a new password may not be built on.
    const passwordHash = await this.passwords.hash(await checkedPassword(command.password, { email: user.email }));
    const set = { type: 'SetUserPassword' as const, orgId, passwordHash };
    // Refused (a disabled user) before the address is touched; decided again on the stream below.
    userDecider.decide(set, user);
    // A user with a password can sign in: the address must be its for good. An invited user's
    // reservation becomes a claim (no other organization's invitee can take it any more); an
    // invited user of an address another organization holds is refused (400 on /email).
    await this.aggregates.handle(
      userEmailStream(user.emailDigest),
      userEmailDecider,
      { type: 'ClaimUserEmail', emailDigest: user.emailDigest, userId, orgId },
      registryContext(context),
      {
        retries: 1,
      },
    );
    await this.aggregates.handle(stream, userDecider, set, context);
  }
}
