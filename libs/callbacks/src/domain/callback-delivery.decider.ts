import { conflict, type Decider, notFound } from '#warden/kernel';
import type { CallbackDeliveryEvent, CallbackDeliveryRequested, CallbackDestination } from './callback-delivery.events.js';
import { retryDelayMs } from './retry-backoff.js';

export type DeliveryStatus = 'none' | 'pending' | 'failed' | 'delivered' | 'dead';

export type AttemptOutcome =
  { ok: true; status: number; durationMs: number } | { ok: false; status: number | null; error: string; durationMs: number; retryAfterMs: number | null };

export type CallbackDeliveryCommand =
  | { type: 'RequestDelivery'; request: CallbackDeliveryRequested['data'] }
  | {
      type: 'RecordAttempt';
      cycle: number;
      attempt: number;
      at: string;
      outcome: AttemptOutcome;
      /** Retry delays in ms; its length is the number of retries. */
      schedule: readonly number[];
      /** In [0, 1): the jitter draw for the next retry. */
      random: number;
    }
  | { type: 'GiveUp'; cycle: number; at: string; reason: string }
  | { type: 'Redeliver'; at: string; destination: CallbackDestination | null; requestedBy: string };

export interface CallbackDeliveryState {
  status: DeliveryStatus;
  request: CallbackDeliveryRequested['data'] | null;
  destination: CallbackDestination | null;
  cycle: number;
  /** Attempts made in the current cycle. */
  attempts: number;
  nextAttemptAt: string | null;
}

/** How close to its retry a failed delivery can no longer be redelivered (the retry may start meanwhile). */
const RETRY_DUE_GUARD_MS = 5_000;

const sameDestination = (a: CallbackDestination | null, b: CallbackDestination | null) => JSON.stringify(a) === JSON.stringify(b);

/**
 * One callback delivery: requested once, attempted until a 2xx or the schedule runs out
 * (dead-lettered), and started afresh on an operator's request. Attempts carry their cycle and
 * number, so an attempt decided on a stale state (another worker, a redelivery) is refused.
 */
export const callbackDeliveryDecider: Decider<CallbackDeliveryCommand, CallbackDeliveryState, CallbackDeliveryEvent> = {
  eventTypes: {
    CallbackDeliveryRequested: true,
    CallbackAttemptFailed: true,
    CallbackDelivered: true,
    CallbackDeadLettered: true,
    CallbackRedeliveryRequested: true,
  },
  initialState: { status: 'none', request: null, destination: null, cycle: 0, attempts: 0, nextAttemptAt: null },

  decide(command, state) {
    switch (command.type) {
      case 'RequestDelivery': {
        if (state.status !== 'none') return [];
        const requested: CallbackDeliveryEvent = { type: 'CallbackDeliveryRequested', data: command.request };
        if (command.request.destination !== null) return [requested];
        return [
          requested,
          {
            type: 'CallbackDeadLettered',
            data: {
              deliveryId: command.request.deliveryId,
              cycle: 1,
              attempts: 0,
              reason: 'No callback URL is configured for it',
              deadLetteredAt: command.request.requestedAt,
            },
          },
        ];
      }
      case 'RecordAttempt': {
        const deliveryId = state.request?.deliveryId;
        if (
          deliveryId === undefined ||
          (state.status !== 'pending' && state.status !== 'failed') ||
          command.cycle !== state.cycle ||
          command.attempt !== state.attempts + 1
        ) {
          throw conflict(`Attempt ${command.cycle}.${command.attempt} of delivery ${deliveryId ?? '?'} is stale`);
        }
        const { outcome } = command;
        if (outcome.ok) {
          return [
            {
              type: 'CallbackDelivered',
              data: {
                deliveryId,
                cycle: command.cycle,
                attempt: command.attempt,
                status: outcome.status,
                durationMs: outcome.durationMs,
                deliveredAt: command.at,
              },
            },
          ];
        }
        const delay = retryDelayMs(command.schedule, command.attempt, command.random, outcome.retryAfterMs);
        const failed: CallbackDeliveryEvent = {
          type: 'CallbackAttemptFailed',
          data: {
            deliveryId,
            cycle: command.cycle,
            attempt: command.attempt,
            status: outcome.status,
            error: outcome.error,
            durationMs: outcome.durationMs,
            retryAfterMs: outcome.retryAfterMs,
            attemptedAt: command.at,
            nextAttemptAt: delay === undefined ? null : new Date(Date.parse(command.at) + delay).toISOString(),
          },
        };
        if (delay !== undefined) return [failed];
        return [
          failed,
          {
            type: 'CallbackDeadLettered',
            data: {
              deliveryId,
              cycle: command.cycle,
              attempts: command.attempt,
              reason: `All ${command.attempt} attempts failed; the last: ${outcome.error}`,
              deadLetteredAt: command.at,
            },
          },
        ];
      }
      case 'GiveUp': {
        if ((state.status !== 'pending' && state.status !== 'failed') || command.cycle !== state.cycle) return [];
        return [
          {
            type: 'CallbackDeadLettered',
            data: {
              deliveryId: state.request!.deliveryId,
              cycle: state.cycle,
              attempts: state.attempts,
              reason: command.reason,
              deadLetteredAt: command.at,
            },
          },
        ];
      }
      case 'Redeliver': {
        if (state.status === 'none') throw notFound('No such callback delivery');
        if (state.status === 'pending') throw conflict(`Delivery ${state.request!.deliveryId} is about to be attempted already`);
        // A retry that is due may be on its way to the receiver already: a new cycle now would send the delivery twice.
        if (state.status === 'failed' && Date.parse(state.nextAttemptAt!) <= Date.parse(command.at) + RETRY_DUE_GUARD_MS) {
          throw conflict(
            `Delivery ${state.request!.deliveryId} has a retry due at ${state.nextAttemptAt}, which may be under way; redeliver once it has been attempted`,
          );
        }
        const destination = command.destination ?? state.destination;
        if (destination === null) throw conflict(`Delivery ${state.request!.deliveryId} has no callback URL configured to send it to`);
        return [
          {
            type: 'CallbackRedeliveryRequested',
            data: {
              deliveryId: state.request!.deliveryId,
              cycle: state.cycle + 1,
              destination: sameDestination(destination, state.destination) ? null : destination,
              requestedBy: command.requestedBy,
              requestedAt: command.at,
              nextAttemptAt: command.at,
            },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'CallbackDeliveryRequested':
        return {
          status: 'pending',
          request: event.data,
          destination: event.data.destination,
          cycle: 1,
          attempts: 0,
          nextAttemptAt: event.data.nextAttemptAt,
        };
      case 'CallbackAttemptFailed':
        return { ...state, status: 'failed', attempts: event.data.attempt, nextAttemptAt: event.data.nextAttemptAt };
      case 'CallbackDelivered':
        return { ...state, status: 'delivered', attempts: event.data.attempt, nextAttemptAt: null };
      case 'CallbackDeadLettered':
        return { ...state, status: 'dead', nextAttemptAt: null };
      case 'CallbackRedeliveryRequested':
        return {
          ...state,
          status: 'pending',
          destination: event.data.destination ?? state.destination,
          cycle: event.data.cycle,
          attempts: 0,
          nextAttemptAt: event.data.nextAttemptAt,
        };
    }
  },
};
