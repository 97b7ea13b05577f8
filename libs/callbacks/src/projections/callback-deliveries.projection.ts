import { eventProjection } from '#warden/eventstore';
import type { ReadDocument } from '#warden/readstore';
import { CALLBACK_DELIVERY_EVENT_TYPES, type CallbackDeliveryEvent, type CallbackDestination } from '../domain/callback-delivery.events.js';
import { CALLBACK_DELIVERIES, CALLBACK_SCHEDULE, type CallbackDeliveryDoc, type CallbackScheduleDoc, deliveryDocId } from './callback-deliveries.read-model.js';

export const CALLBACK_DELIVERIES_PROJECTION = 'callback-deliveries';

const shown = (destination: CallbackDestination | null): string | null => {
  if (!destination) return null;
  try {
    const url = new URL(destination.url);
    return `${url.origin}${url.pathname}`;
  } catch {
    return null;
  }
};

type Named = Array<{ id: string; name: string }>;

/** `{id, name}` of each entry of a list as a callback body holds it; [] for anything else. */
const namedList = (value: unknown): Named =>
  Array.isArray(value)
    ? value.flatMap((v) => {
        const { id, name } = (typeof v === 'object' && v !== null ? v : {}) as { id?: unknown; name?: unknown };
        return typeof id === 'string' && typeof name === 'string' ? [{ id, name }] : [];
      })
    : [];

/**
 * What the callback names: recorded outside the body since appeals needed it; before, only a body
 * that was not sealed (no personal data in it) says, and this projection never opens sealed ones.
 */
const namedBy = (d: { policies?: Named; rules?: Named; body?: unknown }): { policies: Named; rules: Named } => {
  const body = (typeof d.body === 'object' && d.body !== null ? d.body : {}) as { policies?: unknown; rules?: unknown };
  return { policies: d.policies ?? namedList(body.policies), rules: d.rules ?? namedList(body.rules) };
};

/** Deliveries by status for the operator surface, and the schedule of those still due. */
export const callbackDeliveriesProjection = eventProjection<CallbackDeliveryEvent>({
  name: CALLBACK_DELIVERIES_PROJECTION,
  collections: [CALLBACK_DELIVERIES, CALLBACK_SCHEDULE],
  eventTypes: [...CALLBACK_DELIVERY_EVENT_TYPES],
  needsPersonalData: false,
  ownThread: true,
  indexes: [
    // The deliveries list, newest first, of every status or one (GET /api/v1/callbacks/deliveries):
    // read in index order and stopped at the page, where a rule firing all day left millions.
    { collection: CALLBACK_DELIVERIES, fields: ['orgId', 'requestedAt'] },
    { collection: CALLBACK_DELIVERIES, fields: ['orgId', 'status', 'requestedAt'] },
    // An item's deliveries, newest first (a review job's view, its appeal's): with the item alone,
    // SQLite read the organization's deliveries in time order by the index above, filtering for
    // the item, every one of them for an item with fewer than the page (a helper's hunt: 10 ms a
    // claim at 20,000 deliveries, growing with them).
    { collection: CALLBACK_DELIVERIES, fields: ['orgId', 'item.typeId', 'item.id', 'requestedAt'] },
    // `warden callbacks redeliver <deliveryId>` without --org: the delivery in whichever organization.
    { collection: CALLBACK_DELIVERIES, fields: ['deliveryId'] },
    // What a worker reloads when delivering starts, soonest first, a page at a time (scheduled-deliveries.ts).
    { collection: CALLBACK_SCHEDULE, fields: ['nextAttemptAt', 'deliveryId'] },
  ],
  // (orgId, status, requestedAt) and (orgId, item.typeId, item.id, requestedAt) begin with them.
  retiredIndexes: [
    { collection: CALLBACK_DELIVERIES, fields: ['orgId', 'status'] },
    { collection: CALLBACK_DELIVERIES, fields: ['orgId', 'item.typeId', 'item.id'] },
  ],
  async apply(recorded, ctx) {
    const orgId = recorded.metadata.orgId;
    const event = recorded;
    const id = deliveryDocId(orgId, event.data.deliveryId);
    const previous = await ctx.get<CallbackDeliveryDoc>(CALLBACK_DELIVERIES, id);
    if (previous && previous.revision >= recorded.revision) return;
    const at = recorded.metadata.occurredAt;
    let doc: CallbackDeliveryDoc;
    if (event.type === 'CallbackDeliveryRequested') {
      const d = event.data;
      doc = {
        orgId,
        deliveryId: d.deliveryId,
        kind: d.kind,
        trigger: d.trigger,
        actionId: d.actionId,
        appealId: d.appealId,
        item: d.item,
        ...namedBy(d),
        destination: shown(d.destination),
        status: 'pending',
        cycle: 1,
        attempts: 0,
        totalAttempts: 0,
        nextAttemptAt: d.nextAttemptAt,
        lastStatus: null,
        lastError: null,
        requestedAt: d.requestedAt,
        updatedAt: at,
        deliveredAt: null,
        deadLetteredAt: null,
        revision: recorded.revision,
      };
    } else {
      if (!previous) return;
      const base = { ...previous, updatedAt: at, revision: recorded.revision };
      switch (event.type) {
        case 'CallbackAttemptFailed':
          doc = {
            ...base,
            status: 'failed',
            attempts: event.data.attempt,
            totalAttempts: previous.totalAttempts + 1,
            nextAttemptAt: event.data.nextAttemptAt,
            lastStatus: event.data.status,
            lastError: event.data.error,
          };
          break;
        case 'CallbackDelivered':
          doc = {
            ...base,
            status: 'delivered',
            attempts: event.data.attempt,
            totalAttempts: previous.totalAttempts + 1,
            nextAttemptAt: null,
            lastStatus: event.data.status,
            lastError: null,
            deliveredAt: event.data.deliveredAt,
          };
          break;
        case 'CallbackDeadLettered':
          doc = {
            ...base,
            status: 'dead',
            nextAttemptAt: null,
            lastError: previous.lastError ?? event.data.reason,
            deadLetteredAt: event.data.deadLetteredAt,
          };
          break;
        case 'CallbackRedeliveryRequested':
          doc = {
            ...base,
            status: 'pending',
            cycle: event.data.cycle,
            attempts: 0,
            nextAttemptAt: event.data.nextAttemptAt,
            destination: event.data.destination ? shown(event.data.destination) : previous.destination,
            deliveredAt: null,
            deadLetteredAt: null,
          };
          break;
      }
    }
    ctx.put(CALLBACK_DELIVERIES, id, doc as unknown as ReadDocument);
    if (doc.nextAttemptAt !== null) {
      const due: CallbackScheduleDoc = { orgId, deliveryId: doc.deliveryId, nextAttemptAt: doc.nextAttemptAt, revision: doc.revision };
      ctx.put(CALLBACK_SCHEDULE, id, due);
    } else {
      ctx.delete(CALLBACK_SCHEDULE, id);
    }
  },
});
