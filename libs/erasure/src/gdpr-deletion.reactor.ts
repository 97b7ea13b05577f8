import { eventProjection, type Projection } from '#warden/eventstore';
import type { GdprDeletionRequested } from './domain/gdpr-deletion.events.js';
import type { UserEraser } from './user-eraser.js';

// Named, like the actor of what it records, when erasure was part of the audit module: the name
// stays, so that its checkpoint, lease and consumer group carry on.
export const GDPR_DELETION_REACTOR = 'audit-gdpr-deletion';

/** Erases the user of each GdprDeletionRequested (UserEraser), once per request: it completes the request. */
export function gdprDeletionReactor(deps: { readonly eraser: UserEraser }): Projection {
  return eventProjection<GdprDeletionRequested>({
    name: GDPR_DELETION_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['GdprDeletionRequested'],
    needsPersonalData: false,
    apply: async (event) => {
      await deps.eraser.erase(
        event.data,
        {
          orgId: event.metadata.orgId,
          correlationId: event.metadata.correlationId,
          causationId: event.id,
          actor: 'audit',
        },
        event.position,
      );
    },
  });
}
