import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { apiKeyDecider } from '../../domain/api-key.decider.js';
import { apiKeyStream } from '../../domain/identity.streams.js';
import { RevokeApiKeyCommand } from './revoke-api-key.command.js';

@CommandHandler(RevokeApiKeyCommand)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKeyCommand> {
  constructor(private readonly aggregates: AggregateStore) {}

  async execute(command: RevokeApiKeyCommand): Promise<void> {
    await this.aggregates.handle(
      apiKeyStream(command.orgId, command.keyId),
      apiKeyDecider,
      { type: 'RevokeApiKey', keyId: command.keyId, orgId: command.orgId },
      command.context,
    );
  }
}
