import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '#warden/eventstore';
import { KEYRING, type Keyring } from '#warden/platform';
import { AggregateStore, EVENT_STORE, ProjectionHost } from '#warden/storage';
import type { QueueDefinition } from '../../domain/catalog.model.js';
import { orgConfigDecider } from '../../domain/org-config.decider.js';
import { readOrgConfig, recordOrgConfigChange } from '../org-config-state.js';
import { DefineQueueCommand, type DefineQueueResult } from './define-queue.command.js';

/**
 * Decided on the organization's configuration stream with its expected revision, like an apply
 * and the SSO change: a concurrent apply or console change makes this one a 409, never a lost
 * update, and the one-default check sees every queue as the stream has it.
 */
@CommandHandler(DefineQueueCommand)
export class DefineQueueHandler implements ICommandHandler<DefineQueueCommand> {
  constructor(
    @Inject(EVENT_STORE) readonly events: EventStore,
    @Inject(KEYRING) readonly keyring: Keyring,
    readonly aggregates: AggregateStore,
    @Inject(ProjectionHost) readonly projections: ProjectionHost,
  ) {}

  async execute(command: DefineQueueCommand): Promise<DefineQueueResult> {
    const read = await readOrgConfig(this.events, this.keyring, command.orgId);
    const { state } = read;
    // The path names the queue an update replaces; a body's own `id` may not move it elsewhere.
    const queue = command.mode === 'update' ? { ...command.definition, id: command.queueId } : command.definition;
    const decided = orgConfigDecider.decide({ type: 'DefineQueue', mode: command.mode, queue }, state);
    const after = decided.reduce(orgConfigDecider.evolve, state);
    const id = command.mode === 'update' ? (command.queueId as string) : definedQueueId(decided, command.definition);
    const defined = after.entities.queue[id]!.entity as QueueDefinition;
    if (decided.length === 0) return { queue: defined, changed: false };

    // Read your writes: the queue is listed and claimable in this process at once.
    await recordOrgConfigChange(this, read, decided, command.orgId, command.context);
    return { queue: defined, changed: true };
  }
}

/** A create always records one QueueDefined (an existing queue is a conflict): its entity names the id. */
function definedQueueId(decided: ReadonlyArray<{ type: string; data: unknown }>, definition: Readonly<Record<string, unknown>>): string {
  const event = decided.find((e) => e.type === 'QueueDefined');
  return event ? (event.data as { entity: QueueDefinition }).entity.id : String(definition['id']);
}
