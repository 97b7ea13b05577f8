import type { DomainEvent } from '#warden/kernel';
import type { JsonBody } from './callback-body.model.js';

/** A header value sealed under the keyring (the shape of the platform's SealedSecret). */
export interface SealedValue {
  readonly kid: string;
  readonly iv: string;
  readonly ct: string;
  readonly tag: string;
}

/**
 * Where a callback goes: the configured URL and headers, sealed. `url` is the URL without user
 * info, query string or fragment (shown by the API); `sealedUrl` is the whole URL, which the
 * dispatcher opens to send. Events written by 0.1.0 had the whole URL in `url` and no
 * `sealedUrl`; they are upcast on read (callback-url.upcasters.ts).
 */
export interface CallbackDestination {
  url: string;
  sealedUrl: SealedValue;
  headers: { [name: string]: SealedValue };
}

export type CallbackKind = 'action' | 'appeal';
export type CallbackTriggerKind = 'rule' | 'decision' | 'strike-threshold' | 'appeal-decision' | 'post-actions';

export type CallbackDeliveryRequested = DomainEvent<
  'CallbackDeliveryRequested',
  {
    deliveryId: string;
    kind: CallbackKind;
    trigger: CallbackTriggerKind;
    actionId: string | null;
    appealId: string | null;
    item: { id: string; typeId: string };
    /** Null when nothing is configured to send it to: the delivery is dead-lettered at once. */
    destination: CallbackDestination | null;
    /** The exact body sent, serialized with JSON.stringify (key order as here). */
    body: JsonBody;
    /** Personal-data subject whose key seals `body` when it carries what users wrote. */
    subject: string | null;
    /**
     * A decision's callback: the deciding moderator (a console user), under whose own key the
     * body's `actorEmail` is sealed once more (docs/gdpr.md); a bulk action's execution: the
     * manager who asked for it, likewise. Absent on other callbacks and on deliveries requested
     * before it was recorded.
     */
    actorUserId?: string;
    /**
     * The policies and rules the action callback names, outside the sealed body (they are no
     * personal data; the appeal job view reads them). Missing on appeal callbacks
     * and on deliveries requested before they were recorded.
     */
    policies?: Array<{ id: string; name: string }>;
    rules?: Array<{ id: string; name: string }>;
    requestedAt: string;
    nextAttemptAt: string;
  }
>;

export type CallbackAttemptFailed = DomainEvent<
  'CallbackAttemptFailed',
  {
    deliveryId: string;
    cycle: number;
    /** 1 for the first attempt of the cycle. */
    attempt: number;
    /** The receiver's status; null when no response came (network error, timeout, signing). */
    status: number | null;
    error: string;
    durationMs: number;
    retryAfterMs: number | null;
    attemptedAt: string;
    /** Null when this was the last attempt (a CallbackDeadLettered follows). */
    nextAttemptAt: string | null;
  }
>;

export type CallbackDelivered = DomainEvent<
  'CallbackDelivered',
  { deliveryId: string; cycle: number; attempt: number; status: number; durationMs: number; deliveredAt: string }
>;

export type CallbackDeadLettered = DomainEvent<
  'CallbackDeadLettered',
  { deliveryId: string; cycle: number; attempts: number; reason: string; deadLetteredAt: string }
>;

/** An operator asked for a fresh attempt cycle (same delivery id, same body). */
export type CallbackRedeliveryRequested = DomainEvent<
  'CallbackRedeliveryRequested',
  {
    deliveryId: string;
    cycle: number;
    /** The destination as configured now, when it changed since the request; else null. */
    destination: CallbackDestination | null;
    requestedBy: string;
    requestedAt: string;
    nextAttemptAt: string;
  }
>;

export type CallbackDeliveryEvent = CallbackDeliveryRequested | CallbackAttemptFailed | CallbackDelivered | CallbackDeadLettered | CallbackRedeliveryRequested;

export const CALLBACK_DELIVERY_EVENT_TYPES: ReadonlyArray<CallbackDeliveryEvent['type']> = [
  'CallbackDeliveryRequested',
  'CallbackAttemptFailed',
  'CallbackDelivered',
  'CallbackDeadLettered',
  'CallbackRedeliveryRequested',
];
