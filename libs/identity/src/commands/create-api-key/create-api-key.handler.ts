import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { notFound } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { apiKeyDecider } from '../../domain/api-key.decider.js';
import { generateApiKey } from '../../domain/api-key-secret.js';
import { apiKeyStream, organizationStream } from '../../domain/identity.streams.js';
import { CreateApiKeyCommand, type CreatedApiKey } from './create-api-key.command.js';

@CommandHandler(CreateApiKeyCommand)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKeyCommand> {
  constructor(private readonly aggregates: AggregateStore) {}

  async execute(command: CreateApiKeyCommand): Promise<CreatedApiKey> {
    // The write side decides from the log, not from a read model that may lag.
    if (!(await this.aggregates.exists(organizationStream(command.orgId)))) {
      throw notFound(`No organization ${command.orgId}`);
    }
    const keyId = this.aggregates.newId('key_');
    const secret = generateApiKey();
    await this.aggregates.handle(
      apiKeyStream(command.orgId, keyId),
      apiKeyDecider,
      {
        type: 'CreateApiKey',
        keyId,
        orgId: command.orgId,
        name: command.name,
        team: command.team,
        hash: secret.hash,
        prefix: secret.prefix,
        rotatedFrom: command.rotatedFrom,
      },
      command.context,
      { retries: 0 },
    );
    return { keyId, orgId: command.orgId, prefix: secret.prefix, key: secret.key };
  }
}
