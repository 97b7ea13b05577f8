import { eventProjection, orderingKey, type Projection } from '#warden/eventstore';
import type { BulkActionChunkExecuted, BulkActionRequested } from '../domain/bulk-action.events.js';
import type { BulkActionRunner } from './bulk-action-runner.js';

export const BULK_ACTIONS_REACTOR = 'enforcement-bulk-actions';

/**
 * Runs bulk operations in the background (BulkActionRunner): each event of an operation's stream
 * starts its next chunk. Keyed by the operation, so two operations run side by side and one's
 * chunks one after the other.
 */
export function bulkActionsReactor(deps: { readonly runner: BulkActionRunner }): Projection {
  return eventProjection<BulkActionRequested | BulkActionChunkExecuted>({
    name: BULK_ACTIONS_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['BulkActionRequested', 'BulkActionChunkExecuted'],
    needsPersonalData: false,
    keyOf: (event) => orderingKey(event, event.streamName),
    apply: (event) => deps.runner.continueAfter(event),
  });
}
