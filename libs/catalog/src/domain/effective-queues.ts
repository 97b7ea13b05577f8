import { CHILD_SAFETY_QUEUE_ID, CHILD_SAFETY_QUEUE_NAME, MAX_AUTO_CLOSE_DAYS, MAX_LOCK_TIMEOUT_SECONDS, type QueueDefinition } from './catalog.model.js';

export const DEFAULT_QUEUE_ID = 'default';

const builtin = (id: string, name: string, isDefault: boolean): QueueDefinition => ({
  id,
  name,
  isDefault,
  isAppealsDefault: false,
  lockTimeoutSeconds: 600,
  order: 'FIFO',
  autoCloseAfterDays: null,
});

/**
 * The queues an organization has: those it declares, the built-in child-safety queue, and — when
 * none is marked `isDefault` — a built-in `default` queue, so that a report always has somewhere
 * to go. A declared queue with the id `default` is the default one when no other is marked.
 *
 * Given queues it already completed, it answers the same list: a caller cannot tell the queues as
 * declared from these by their type, and handing these in again once listed child-safety twice.
 * (No organization declares child-safety: the catalog keeps its id for the built-in queue.)
 */
export function effectiveQueues(declared: readonly QueueDefinition[]): QueueDefinition[] {
  // Within the bounds apply checks, for a queue stored before they were (its lock's expiry, a valid date).
  const queues = declared.map((q) => ({
    ...q,
    lockTimeoutSeconds: Math.min(q.lockTimeoutSeconds, MAX_LOCK_TIMEOUT_SECONDS),
    autoCloseAfterDays: q.autoCloseAfterDays === null ? null : Math.min(q.autoCloseAfterDays, MAX_AUTO_CLOSE_DAYS),
  }));
  if (!queues.some((q) => q.isDefault)) {
    const named = queues.find((q) => q.id === DEFAULT_QUEUE_ID);
    if (named) named.isDefault = true;
    else queues.push(builtin(DEFAULT_QUEUE_ID, 'Default', true));
  }
  if (!queues.some((q) => q.id === CHILD_SAFETY_QUEUE_ID)) queues.push(builtin(CHILD_SAFETY_QUEUE_ID, CHILD_SAFETY_QUEUE_NAME, false));
  return queues;
}

export const defaultQueueOf = (queues: readonly QueueDefinition[]): QueueDefinition => queues.find((q) => q.isDefault)!;
