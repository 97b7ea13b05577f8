import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { userStream } from '../../domain/identity.streams.js';
import { hashPassword } from '../../domain/password-hasher.js';
import { checkedPassword } from '../../domain/password-policy.js';
import { userDecider } from '../../domain/user.decider.js';
import { SetUserPasswordCommand } from './set-user-password.command.js';

@CommandHandler(SetUserPasswordCommand)
export class SetUserPasswordHandler implements ICommandHandler<SetUserPasswordCommand> {
  constructor(private readonly aggregates: AggregateStore) {}

  async execute(command: SetUserPasswordCommand): Promise<void> {
    const stream = userStream(command.orgId, command.userId);
    // The user's own address is among the words a new password may not be built on.
    const user = await this.aggregates.state(stream, userDecider);
    const passwordHash = await hashPassword(await checkedPassword(command.password, { email: user?.orgId === command.orgId ? user.email : null }));
    await this.aggregates.handle(
      stream,
      userDecider,
      { type: 'SetUserPassword', orgId: command.orgId, passwordHash },
      command.context,
    );
  }
}
