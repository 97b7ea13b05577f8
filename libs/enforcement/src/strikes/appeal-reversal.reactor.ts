import type { AppealDecided } from '#warden/appeals/contracts';
import { eventProjection, orderingKey, type Projection } from '#warden/eventstore';
import type { RecordedOf } from '#warden/kernel';
import type { AcceptedAppeal, StrikeApplier } from './strike-applier.js';

export const APPEAL_REVERSAL_REACTOR = 'enforcement-appeal-reversals';

/** An accepted appeal for the reversal; undefined for a rejection or an outcome recorded without what was appealed. */
export function acceptedAppealOf(event: RecordedOf<AppealDecided>): AcceptedAppeal | undefined {
  const { data } = event;
  if (data.decision !== 'ACCEPT' || !data.actionedItem || !data.actionsTaken) return undefined;
  return { appealId: data.appealId, actionedItem: data.actionedItem, actionsTaken: data.actionsTaken, decidedAt: data.decidedAt };
}

/**
 * ACCEPT_APPEAL reverses the appealed actions: their strikes stop counting (a threshold they
 * crossed re-arms) and, through the UserActionsReversed it records, their penalty leaves the
 * user's score. A re-run finds the appeal's reversal recorded and adds nothing.
 */
export function appealReversalReactor(deps: { applier: StrikeApplier }): Projection {
  // AppealDecided is the appeals module's, taken from its contracts (framework-free): the modules
  // meet through the event's one declaration, not through each other's code.
  return eventProjection<AppealDecided>({
    name: APPEAL_REVERSAL_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['AppealDecided'],
    // Ids only: the appeal's sealed parts (appellant, reason) are not read.
    needsPersonalData: false,
    // By the appeal's stream: appeals at once (reversals for one user meet at the user's strikes
    // stream, whose expected-revision check orders them).
    keyOf: (event) => orderingKey(event, event.streamName),
    apply: async (event) => {
      const appeal = acceptedAppealOf(event);
      if (!appeal) return;
      const orgId = event.metadata.orgId;
      await deps.applier.reverse(orgId, appeal, { orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: 'enforcement' });
    },
  });
}
