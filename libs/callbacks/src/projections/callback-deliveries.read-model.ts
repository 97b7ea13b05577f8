import type { CallbackKind, CallbackTriggerKind } from '../domain/callback-delivery.events.js';

export const CALLBACK_DELIVERIES = 'callback_deliveries';
/** Only the deliveries still to attempt, with when: what a restarted worker reloads. */
export const CALLBACK_SCHEDULE = 'callback_schedule';

export type ListedStatus = 'pending' | 'failed' | 'delivered' | 'dead';

/** One delivery as operators see it; never the body or the header values. */
export type CallbackDeliveryDoc = {
  orgId: string;
  deliveryId: string;
  kind: CallbackKind;
  trigger: CallbackTriggerKind;
  actionId: string | null;
  appealId: string | null;
  item: { id: string; typeId: string };
  /**
   * The policies and rules the action callback names (empty for appeal callbacks and threshold
   * callbacks). Deliveries requested before they were recorded outside the body: read from the
   * body when it was not sealed, else empty. Missing on documents written before then.
   */
  policies?: Array<{ id: string; name: string }>;
  rules?: Array<{ id: string; name: string }>;
  /** The callback URL without its query string (which may hold a token). */
  destination: string | null;
  /** pending: an attempt is due (none failed yet in this cycle); failed: a retry is scheduled. */
  status: ListedStatus;
  cycle: number;
  attempts: number;
  totalAttempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  requestedAt: string;
  updatedAt: string;
  deliveredAt: string | null;
  deadLetteredAt: string | null;
  /** Last event of the delivery's stream applied (replays skip older ones). */
  revision: number;
};

export type CallbackScheduleDoc = { orgId: string; deliveryId: string; nextAttemptAt: string; revision: number };

export const deliveryDocId = (orgId: string, deliveryId: string) => `${orgId}:${deliveryId}`;
