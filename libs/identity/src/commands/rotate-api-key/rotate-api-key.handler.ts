import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { conflict, notFound } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { apiKeyDecider } from '../../domain/api-key.decider.js';
import type { ApiKeyCreated } from '../../domain/identity.events.js';
import { apiKeyStream } from '../../domain/identity.streams.js';
import { CreateApiKeyCommand, type CreatedApiKey } from '../create-api-key/create-api-key.command.js';
import { RotateApiKeyCommand } from './rotate-api-key.command.js';

@CommandHandler(RotateApiKeyCommand)
export class RotateApiKeyHandler implements ICommandHandler<RotateApiKeyCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly commands: CommandBus,
  ) {}

  async execute(command: RotateApiKeyCommand): Promise<CreatedApiKey> {
    const stream = apiKeyStream(command.orgId, command.keyId);
    const { state, events } = await this.aggregates.load(stream, apiKeyDecider);
    if (state.status === 'none' || state.orgId !== command.orgId) throw notFound(`No API key ${command.keyId}`);
    if (state.status !== 'active') throw conflict(`API key ${command.keyId} is already ${state.status}`);
    const original = events.find((e): e is ApiKeyCreated => e.type === 'ApiKeyCreated')!.data;
    // New key first: if the second step fails the caller still holds a working key.
    const created = await this.commands.execute(new CreateApiKeyCommand(command.orgId, original.name, original.team, command.context, command.keyId));
    try {
      await this.aggregates.handle(
        stream,
        apiKeyDecider,
        { type: 'RotateApiKey', keyId: command.keyId, orgId: command.orgId, replacedBy: created.keyId },
        command.context,
      );
    } catch (error) {
      // Another rotation (a second click) won meanwhile: the key made here was never handed to
      // anyone, so it goes before the refusal is answered, instead of staying active unknown.
      await this.aggregates.handle(
        apiKeyStream(command.orgId, created.keyId),
        apiKeyDecider,
        { type: 'RevokeApiKey', keyId: created.keyId, orgId: command.orgId },
        command.context,
      );
      throw error;
    }
    return created;
  }
}
