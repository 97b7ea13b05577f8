import { randomUUID } from 'node:crypto';
import type { JsonObject, NewEvent } from '#warden/kernel';

/** Object mother for events in tests. */
export function anEvent(type = 'ThingHappened', data: JsonObject = {}, orgId = 'acme'): NewEvent {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: {
      orgId,
      correlationId: randomUUID(),
      causationId: null,
      actor: 'test',
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
    },
  };
}
