import type { JsonObject, Upcaster } from '#warden/kernel';

/**
 * QueueDefined v1 → v2. Issue 13 added `order` and `autoCloseAfterDays` to `queues:`; a queue
 * defined before then gets their defaults (oldest first, never closed for age), so applying the
 * same file again after an upgrade finds nothing changed.
 */
export const queueDefinitionUpcasters: Upcaster[] = [
  {
    eventType: 'QueueDefined',
    fromVersion: 1,
    upcast(data) {
      const entity = data['entity'] as JsonObject;
      return { ...data, entity: { order: 'FIFO', autoCloseAfterDays: null, ...entity } };
    },
  },
];
