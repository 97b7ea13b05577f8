import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, ProjectionHost, KEYRING, type Keyring } from '#warden/storage';
import type { QueueDefinition } from '../../domain/catalog.model.js';
import { changeOrgConfig } from '../org-config-state.js';
import { DefineQueueCommand, type DefineQueueResult } from './define-queue.command.js';

/**
 * Decided on the organization's configuration stream with its expected revision, like an apply
 * and the SSO change (changeOrgConfig): never a lost update, and the one-default check sees every
 * queue as the stream has it.
 */
@CommandHandler(DefineQueueCommand)
export class DefineQueueHandler implements ICommandHandler<DefineQueueCommand> {
  constructor(
    @Inject(KEYRING) readonly keyring: Keyring,
    readonly aggregates: AggregateStore,
    @Inject(ProjectionHost) readonly projections: ProjectionHost,
  ) {}

  async execute(command: DefineQueueCommand): Promise<DefineQueueResult> {
    // The path names the queue an update replaces; a body's own `id` may not move it elsewhere.
    const queue = command.mode === 'update' ? { ...command.definition, id: command.queueId } : command.definition;
    // Read your writes: the queue is listed and claimable in this process at once.
    const { events, state } = await changeOrgConfig(this, command.orgId, { type: 'DefineQueue', mode: command.mode, queue }, command.context);
    const id = command.mode === 'update' ? (command.queueId as string) : definedQueueId(events, command.definition);
    const defined = state.entities.queue[id]!.entity as QueueDefinition;
    return { queue: defined, changed: events.length > 0 };
  }
}

/** A create always records one QueueDefined (an existing queue is a conflict): its entity names the id. */
function definedQueueId(decided: ReadonlyArray<{ type: string; data: unknown }>, definition: Readonly<Record<string, unknown>>): string {
  const event = decided.find((e) => e.type === 'QueueDefined');
  return event ? (event.data as { entity: QueueDefinition }).entity.id : String(definition['id']);
}
