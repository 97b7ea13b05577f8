import { orderingKey, type Projection } from '#warden/eventstore';
import { type RecordedEvent, recordedAs } from '#warden/kernel';
import type { ActionCallbackRequested } from '../domain/action-callback.events.js';
import { DELIVERY_REACTOR } from './action-deliveries.port.js';
import type { ActionDeliveryRecorder } from './action-delivery-recorder.js';
import { actionUserKey, type CallbackDispatcher } from './callback-dispatcher.js';

/**
 * What orders the reactor's events: a published action by its user, or by its item when it has
 * no user; a delivery requested elsewhere by its own stream. So one user's flood of actions holds
 * up no other user's callbacks.
 */
export function deliveryOrderingKey(event: RecordedEvent): string {
  const published = recordedAs<ActionCallbackRequested>(event, 'ActionCallbackRequested');
  if (!published) return orderingKey(event, event.streamName);
  const { creator, item } = published.data;
  return orderingKey(event, actionUserKey(creator, item));
}

/**
 * The worker's delivery reactor: wakes the dispatcher for deliveries requested or restarted
 * anywhere (the CLI's appeal callbacks and redeliveries, and action deliveries recorded in another
 * worker), and, where no module counts strikes (`actions`), records the delivery of every
 * published action itself, with the count its publisher put in the event. Where enforcement
 * counts them, it hands every published action to ACTION_DELIVERIES instead, once the action's
 * strikes are in (docs/architecture.md, "Main flows"). Delivering itself never holds up the reactor.
 */
export function deliveryReactor(deps: {
  dispatcher: CallbackDispatcher;
  /** Set where this reactor records published actions' deliveries itself (CallbacksOptions.actionsThroughPort unset). */
  actions?: ActionDeliveryRecorder;
  /** This process starts running the reactor: start delivering and reload what is due. */
  activate?: () => Promise<void> | void;
  /** It stopped running here (shutdown, or another worker took over). */
  deactivate?: () => Promise<void> | void;
}): Projection {
  const handle = async (event: RecordedEvent) => {
    const published = recordedAs<ActionCallbackRequested>(event, 'ActionCallbackRequested');
    if (!published) {
      const data = event.data as { deliveryId: string; nextAttemptAt: string };
      deps.dispatcher.schedule({ orgId: event.metadata.orgId, deliveryId: data.deliveryId }, data.nextAttemptAt, event.revision);
      return;
    }
    const { data } = published;
    await deps.actions?.record(event, data.trigger === 'strike-threshold' ? (data.userStrikeCount ?? null) : null);
  };
  return {
    name: DELIVERY_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: [...(deps.actions ? ['ActionCallbackRequested'] : []), 'CallbackDeliveryRequested', 'CallbackRedeliveryRequested'],
    // A decision's callback carries the merged reports (reportHistory), sealed in its event: the
    // delivery's body needs them opened (the delivery seals them again under the same subject).
    needsPersonalData: deps.actions !== undefined,
    keyOf: deliveryOrderingKey,
    apply: handle,
    // Deliveries are streams of their own: a key's run is recorded at once.
    applyBatch: async (events) => {
      await Promise.all(events.map(handle));
    },
    activate: deps.activate,
    deactivate: deps.deactivate,
  };
}
