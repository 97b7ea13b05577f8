import type { Projection } from '#warden/eventstore';
import type { StatementSubmitter } from './statement-submitter.js';

export const SUBMISSION_REACTOR = 'transparency-submission';

/**
 * Wakes the submitter: a published action (a statement to send), the organization's transparency
 * settings changed (submission configured), a batch recorded elsewhere (due at once). Runs where
 * the worker's reactors run; the submitter starts and stops with it.
 */
export function submissionReactor(submitter: StatementSubmitter): Projection {
  return {
    name: SUBMISSION_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ActionCallbackRequested', 'TransparencySettingsChanged', 'StatementBatchRequested'],
    needsPersonalData: false,
    apply(event) {
      if (event.type === 'StatementBatchRequested') {
        const data = event.data as { batchId: string; nextAttemptAt: string };
        submitter.schedule(event.metadata.orgId, data.batchId, data.nextAttemptAt);
        return;
      }
      submitter.wake(event.metadata.orgId, event.type === 'ActionCallbackRequested' ? event.metadata.occurredAt : undefined);
    },
    activate: () => submitter.start(),
    deactivate: () => submitter.pause(),
  };
}
