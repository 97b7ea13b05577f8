import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { userStream } from '../../domain/identity.streams.js';
import { userDecider } from '../../domain/user.decider.js';
import { ReadOnlySessions } from '../../read-only-sessions.js';
import { CloseConsoleSessionCommand } from './close-console-session.command.js';

@CommandHandler(CloseConsoleSessionCommand)
export class CloseConsoleSessionHandler implements ICommandHandler<CloseConsoleSessionCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly readOnly: ReadOnlySessions,
  ) {}

  async execute(command: CloseConsoleSessionCommand): Promise<void> {
    if (this.readOnly.active) return this.readOnly.close(command.orgId, command.userId, command.sessionId);
    await this.aggregates.handle(
      userStream(command.orgId, command.userId),
      userDecider,
      { type: 'CloseConsoleSession', orgId: command.orgId, sessionId: command.sessionId, reason: 'logout' },
      command.context,
    );
  }
}
