import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type EventStore, handleCommand } from '../../../../eventstore/src/index.js';
import { type Clock, foldEvents, type IdGenerator, conflict, notFound } from '../../../../kernel/src/index.js';
import { CLOCK, EVENT_STORE, ID_GENERATOR } from '../../../../platform/src/index.js';
import { apiKeyDecider } from '../../domain/api-key.decider.js';
import type { ApiKeyEvent } from '../../domain/identity.events.js';
import { apiKeyStream } from '../../domain/identity.streams.js';
import { CreateApiKeyCommand, type CreatedApiKey } from '../create-api-key/create-api-key.command.js';
import { RotateApiKeyCommand } from './rotate-api-key.command.js';

@CommandHandler(RotateApiKeyCommand)
export class RotateApiKeyHandler implements ICommandHandler<RotateApiKeyCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly commands: CommandBus,
  ) {}

  async execute(command: RotateApiKeyCommand): Promise<CreatedApiKey> {
    const stream = apiKeyStream(command.orgId, command.keyId);
    const old = await this.events.readStream(stream);
    const state = foldEvents(apiKeyDecider, old.map((e) => ({ type: e.type, data: e.data }) as unknown as ApiKeyEvent));
    if (state.status === 'none' || state.orgId !== command.orgId) throw notFound(`No API key ${command.keyId}`);
    if (state.status !== 'active') throw conflict(`API key ${command.keyId} is already ${state.status}`);
    // New key first: if the second step fails the caller still holds a working key.
    const created = await this.commands.execute(
      new CreateApiKeyCommand(command.orgId, nameOf(old), teamOf(old), command.context, command.keyId),
    );
    await handleCommand(
      { events: this.events, clock: this.clock, ids: this.ids },
      stream,
      apiKeyDecider,
      { type: 'RotateApiKey', keyId: command.keyId, orgId: command.orgId, replacedBy: created.keyId },
      command.context,
    );
    return created;
  }
}

const nameOf = (events: readonly { type: string; data: Record<string, unknown> }[]) =>
  (events.find((e) => e.type === 'ApiKeyCreated')?.data['name'] as string | null | undefined) ?? null;
const teamOf = (events: readonly { type: string; data: Record<string, unknown> }[]) =>
  (events.find((e) => e.type === 'ApiKeyCreated')?.data['team'] as string | null | undefined) ?? null;
