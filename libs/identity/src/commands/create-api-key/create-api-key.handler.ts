import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type EventStore, handleCommand } from '../../../../eventstore/src/index.js';
import { type Clock, type IdGenerator, notFound } from '../../../../kernel/src/index.js';
import { CLOCK, EVENT_STORE, ID_GENERATOR } from '../../../../platform/src/index.js';
import { apiKeyDecider } from '../../domain/api-key.decider.js';
import { generateApiKey } from '../../domain/api-key-secret.js';
import { apiKeyStream, organizationStream } from '../../domain/identity.streams.js';
import { CreateApiKeyCommand, type CreatedApiKey } from './create-api-key.command.js';

@CommandHandler(CreateApiKeyCommand)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKeyCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async execute(command: CreateApiKeyCommand): Promise<CreatedApiKey> {
    // The write side decides from the log, not from a read model that may lag.
    const org = await this.events.readStream(organizationStream(command.orgId), { maxCount: 1 });
    if (org.length === 0) throw notFound(`No organization ${command.orgId}`);
    const keyId = 'key_' + this.ids.token(12);
    const secret = generateApiKey();
    await handleCommand(
      { events: this.events, clock: this.clock, ids: this.ids },
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
    return { keyId, orgId: command.orgId, key: secret.key };
  }
}
