import type { Projection } from '#warden/eventstore';
import type { QueueDefinition } from '#warden/catalog/contracts';

export const AUTO_CLOSE_QUEUES_PROJECTION = 'review-auto-close-queues';
export const AUTO_CLOSE_QUEUES = 'review_auto_close_queues';

/** A queue whose jobs close with AUTOMATIC_CLOSE (EXPIRED) after `autoCloseAfterDays` of waiting. */
export interface AutoCloseQueueDoc {
  orgId: string;
  queueId: string;
  autoCloseAfterDays: number;
}

export const autoCloseQueueDocId = (orgId: string, queueId: string) => `${orgId}:${queueId}`;

/**
 * The queues of every organization that have an `autoCloseAfterDays`: what the expiry sweep walks
 * (the catalog answers per organization; the sweep needs them all). Each event sets or removes its
 * queue's document outright, so a redelivery changes nothing.
 */
export const autoCloseQueuesProjection: Projection = {
  name: AUTO_CLOSE_QUEUES_PROJECTION,
  collections: [AUTO_CLOSE_QUEUES],
  eventTypes: ['QueueDefined', 'QueueArchived'],
  needsPersonalData: false,
  apply(event, ctx) {
    const orgId = event.metadata.orgId;
    if (event.type === 'QueueArchived') {
      ctx.delete(AUTO_CLOSE_QUEUES, autoCloseQueueDocId(orgId, String(event.data['id'])));
      return;
    }
    const queue = event.data['entity'] as unknown as QueueDefinition;
    const id = autoCloseQueueDocId(orgId, queue.id);
    const days = queue.autoCloseAfterDays ?? null;
    if (days === null) ctx.delete(AUTO_CLOSE_QUEUES, id);
    else ctx.put(AUTO_CLOSE_QUEUES, id, { orgId, queueId: queue.id, autoCloseAfterDays: days });
  },
};
