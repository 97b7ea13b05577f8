import { orderingKey, type Projection } from '#warden/eventstore';
import { type RecordedEvent, recordedAs } from '#warden/kernel';
import { type ActionDeliveries, DELIVERY_REACTOR } from '#warden/callbacks';
import type { ActionCallbackRequested } from '#warden/callbacks/contracts';
import { applicationOf, type StrikeApplier } from './strike-applier.js';

export const ACTIONS_REACTOR = 'enforcement-actions';
/** This module's reactor before it handed actions on (it applied strikes only). */
export const STRIKES_REACTOR = 'enforcement-strikes';

/**
 * Every published action (a rule's, a decision's, an executed or a threshold's
 * ActionCallbackRequested): its strikes applied to its user when it carries any, then its callback
 * handed to the callbacks module (ACTION_DELIVERIES) with the user's count after it, so that the
 * count is known before the delivery is recorded and the callback's path never comes back here
 * (docs/architecture.md, "Main flows"). Users at once; one user's actions in log order, keyed by
 * the user's strikes stream, so one user's flood holds up no other user. A re-run finds each
 * application's key and each delivery recorded, and adds nothing.
 *
 * It succeeds the strikes reactor and the delivery reactor that recorded actions' deliveries:
 * until it has a checkpoint it starts from the earlier of theirs (loadCheckpoint), so that an
 * action one of them had not handled at the upgrade is neither struck nor called back twice, nor lost.
 */
export function actionsReactor(deps: { applier: StrikeApplier; deliveries?: ActionDeliveries }): Projection {
  const { deliveries } = deps;
  const handle = async (events: readonly RecordedEvent[]) => {
    const counts = await deps.applier.applyInOrder(events, deliveries !== undefined);
    if (!deliveries) return;
    await Promise.all(events.map((event, i) => deliveries.record(event, countFor(event, counts[i] ?? null))));
  };
  return {
    name: ACTIONS_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ActionCallbackRequested'],
    succeeds: deliveries ? [STRIKES_REACTOR, DELIVERY_REACTOR] : [STRIKES_REACTOR],
    // A decision's callback carries the merged reports (reportHistory), sealed in its event: the
    // delivery's body needs them opened. Strikes alone read only ids, actions and policies.
    needsPersonalData: deliveries !== undefined,
    keyOf: (event) => orderingKey(event, applicationOf(event)?.stream ?? event.streamName),
    apply: (event) => handle([event]),
    // A run of one user's actions (the key): queued in order, their strikes appended together.
    applyBatch: (events) => handle(events),
  };
}

/** A threshold's own action carries the count that crossed it; every other the count after its strikes. */
function countFor(event: RecordedEvent, counted: number | null): number | null {
  const data = recordedAs<ActionCallbackRequested>(event, 'ActionCallbackRequested')?.data;
  return data?.trigger === 'strike-threshold' ? (data.userStrikeCount ?? null) : counted;
}
