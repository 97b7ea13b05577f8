import type { Projection } from '#warden/eventstore';
import type { RecordedEvent } from '#warden/kernel';
import { applicationOf, type StrikeApplier } from './strike-applier.js';

export const STRIKES_REACTOR = 'enforcement-strikes';

/**
 * Every published action (a rule's or a decision's ActionCallbackRequested) strikes its user when
 * the action applies strikes. Users at once; one user's actions queued in log order, so that the
 * write path decides them in turn and appends them together. A re-run finds each application's
 * key recorded and adds nothing.
 */
export function strikesReactor(deps: { applier: StrikeApplier }): Projection {
  const applyBatch = async (events: readonly RecordedEvent[]) => {
    const byUser = new Map<string, RecordedEvent[]>();
    for (const event of events) {
      const application = applicationOf(event);
      if (!application) continue;
      const list = byUser.get(application.stream);
      if (list) list.push(event);
      else byUser.set(application.stream, [event]);
    }
    await Promise.all([...byUser.values()].map((list) => deps.applier.applyInOrder(list)));
  };
  return {
    name: STRIKES_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ActionCallbackRequested'],
    // Only ids, actions and policies are read: nothing sealed.
    needsPersonalData: false,
    apply: (event) => applyBatch([event]),
    applyBatch,
  };
}
