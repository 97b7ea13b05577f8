import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type EventStore, handleCommand } from '../../../../eventstore/src/index.js';
import type { Clock, IdGenerator } from '../../../../kernel/src/index.js';
import { CLOCK, EVENT_STORE, ID_GENERATOR } from '../../../../platform/src/index.js';
import { apiKeyDecider } from '../../domain/api-key.decider.js';
import { apiKeyStream } from '../../domain/identity.streams.js';
import { RevokeApiKeyCommand } from './revoke-api-key.command.js';

@CommandHandler(RevokeApiKeyCommand)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKeyCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async execute(command: RevokeApiKeyCommand): Promise<void> {
    await handleCommand(
      { events: this.events, clock: this.clock, ids: this.ids },
      apiKeyStream(command.orgId, command.keyId),
      apiKeyDecider,
      { type: 'RevokeApiKey', keyId: command.keyId, orgId: command.orgId },
      command.context,
    );
  }
}
