import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { userStream } from '../../domain/identity.streams.js';
import { checkedPassword, hashPassword } from '../../domain/password-hasher.js';
import { userDecider } from '../../domain/user.decider.js';
import { SetUserPasswordCommand } from './set-user-password.command.js';

@CommandHandler(SetUserPasswordCommand)
export class SetUserPasswordHandler implements ICommandHandler<SetUserPasswordCommand> {
  constructor(private readonly aggregates: AggregateStore) {}

  async execute(command: SetUserPasswordCommand): Promise<void> {
    const passwordHash = await hashPassword(checkedPassword(command.password));
    await this.aggregates.handle(
      userStream(command.orgId, command.userId),
      userDecider,
      { type: 'SetUserPassword', orgId: command.orgId, passwordHash },
      command.context,
    );
  }
}
