import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, type QueueDefinition } from '#warden/catalog';
import { queueVisibleTo } from './contracts.js';
import { notFound } from '#warden/kernel';
import { type Permission } from '#warden/identity/contracts';
import { effectiveQueues } from '#warden/catalog';

/** An organization's queues as a viewer may see them: the child-safety queue only with VIEW_CHILD_SAFETY_DATA. */
@Injectable()
export class ReviewQueues {
  constructor(private readonly queries: QueryBus) {}

  async all(orgId: string): Promise<QueueDefinition[]> {
    return effectiveQueues(await this.declared(orgId));
  }

  async visible(orgId: string, permissions: readonly Permission[]): Promise<QueueDefinition[]> {
    return visibleQueues(await this.declared(orgId), permissions);
  }

  /** The queue, or a 404 (also for the child-safety queue without the permission: it is not shown to exist). */
  async require(orgId: string, queueId: string, permissions: readonly Permission[]): Promise<QueueDefinition> {
    const queue = (await this.visible(orgId, permissions)).find((q) => q.id === queueId);
    if (!queue) throw notFound(`No review queue ${queueId}`);
    return queue;
  }

  private declared(orgId: string): Promise<QueueDefinition[]> {
    return this.queries.execute(new GetLiveEntitiesQuery(orgId, 'queue'));
  }
}

/**
 * Of the organization's queues (a caller's own read of the catalog, as declared or already
 * completed by effectiveQueues: either gives the same answer), those the viewer may see, the
 * built-in ones beside.
 */
export function visibleQueues(declared: readonly QueueDefinition[], permissions: readonly Permission[]): QueueDefinition[] {
  const queues = effectiveQueues(declared);
  return queues.filter((q) => queueVisibleTo(permissions, q.id));
}
