import { orderingKey, type Projection } from '#warden/eventstore';
import { applicationOf, type StrikeApplier } from './strike-applier.js';

export const STRIKES_REACTOR = 'enforcement-strikes';

/**
 * Every published action (a rule's or a decision's ActionCallbackRequested) strikes its user when
 * the action applies strikes. Users at once; one user's actions in log order, keyed by the user's
 * strikes stream (they would only contend for it), so one user's flood holds up no other user. A
 * re-run finds each application's key recorded and adds nothing.
 */
export function strikesReactor(deps: { applier: StrikeApplier }): Projection {
  return {
    name: STRIKES_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ActionCallbackRequested'],
    // Only ids, actions and policies are read: nothing sealed.
    needsPersonalData: false,
    keyOf: (event) => orderingKey(event, applicationOf(event)?.stream ?? event.streamName),
    apply: (event) => deps.applier.apply(event),
    // A run of one user's actions (the key): queued in order, appended together.
    applyBatch: (events) => deps.applier.applyInOrder(events),
  };
}
