import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CHILD_SAFETY_QUEUE_ID, GetLiveEntitiesQuery, type QueueDefinition } from '#warden/catalog';
import { notFound } from '#warden/kernel';
import { type Permission } from '#warden/identity/contracts';
import { effectiveQueues } from './domain/effective-queues.js';

/** An organization's queues as a viewer may see them: the child-safety queue only with VIEW_CHILD_SAFETY_DATA. */
@Injectable()
export class ReviewQueues {
  constructor(private readonly queries: QueryBus) {}

  async all(orgId: string): Promise<QueueDefinition[]> {
    return effectiveQueues(await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'queue')));
  }

  async visible(orgId: string, permissions: readonly Permission[]): Promise<QueueDefinition[]> {
    // The queues as declared: visibleQueues adds the built-in ones itself.
    return visibleQueues(await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'queue')), permissions);
  }

  /** The queue, or a 404 (also for the child-safety queue without the permission: it is not shown to exist). */
  async require(orgId: string, queueId: string, permissions: readonly Permission[]): Promise<QueueDefinition> {
    const queue = (await this.visible(orgId, permissions)).find((q) => q.id === queueId);
    if (!queue) throw notFound(`No review queue ${queueId}`);
    return queue;
  }
}

/** Of the organization's queues as declared (a caller's own read of the catalog), those the viewer may see, the built-in ones beside. */
export function visibleQueues(declared: readonly QueueDefinition[], permissions: readonly Permission[]): QueueDefinition[] {
  const queues = effectiveQueues(declared);
  return permissions.includes('VIEW_CHILD_SAFETY_DATA') ? queues : queues.filter((q) => q.id !== CHILD_SAFETY_QUEUE_ID);
}
