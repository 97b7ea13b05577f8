import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type EventStore, WrongExpectedRevisionError } from '#warden/eventstore';
import { concurrentUpdateConflict } from '#warden/kernel';
import { KEYRING, type Keyring } from '#warden/platform';
import { AggregateStore, EVENT_STORE, ProjectionHost } from '#warden/storage';
import type { QueueDefinition } from '../../domain/catalog.model.js';
import { orgConfigDecider } from '../../domain/org-config.decider.js';
import { CATALOG_PROJECTION } from '../../projections/catalog.projection.js';
import { sealSecrets } from '../../secrets/catalog-secrets.js';
import { readOrgConfig } from '../org-config-state.js';
import { DefineQueueCommand, type DefineQueueResult } from './define-queue.command.js';

/**
 * Decided on the organization's configuration stream with its expected revision, like an apply
 * and the SSO change: a concurrent apply or console change makes this one a 409, never a lost
 * update, and the one-default check sees every queue as the stream has it.
 */
@CommandHandler(DefineQueueCommand)
export class DefineQueueHandler implements ICommandHandler<DefineQueueCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(KEYRING) private readonly keyring: Keyring,
    private readonly aggregates: AggregateStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(command: DefineQueueCommand): Promise<DefineQueueResult> {
    const { stream, state, expected } = await readOrgConfig(this.events, this.keyring, command.orgId);
    // The path names the queue an update replaces; a body's own `id` may not move it elsewhere.
    const queue = command.mode === 'update' ? { ...command.definition, id: command.queueId } : command.definition;
    const decided = orgConfigDecider.decide({ type: 'DefineQueue', mode: command.mode, queue }, state);
    const after = decided.reduce(orgConfigDecider.evolve, state);
    const id = command.mode === 'update' ? (command.queueId as string) : definedQueueId(decided, command.definition);
    const defined = after.entities.queue[id]!.entity as QueueDefinition;
    if (decided.length === 0) return { queue: defined, changed: false };

    try {
      await this.events.append(stream, this.aggregates.stamp(decided.map((e) => sealSecrets(e, this.keyring)), command.context), expected);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) {
        throw concurrentUpdateConflict(`The configuration of ${command.orgId} was changed concurrently (an apply or another change); try again`);
      }
      throw error;
    }
    // Read your writes: the queue is listed and claimable in this process at once.
    await this.projections.catchUp(CATALOG_PROJECTION);
    return { queue: defined, changed: true };
  }
}

/** A create always records one QueueDefined (an existing queue is a conflict): its entity names the id. */
function definedQueueId(decided: ReadonlyArray<{ type: string; data: unknown }>, definition: Readonly<Record<string, unknown>>): string {
  const event = decided.find((e) => e.type === 'QueueDefined');
  return event ? (event.data as { entity: QueueDefinition }).entity.id : String(definition['id']);
}
