import { Inject, Injectable } from '@nestjs/common';
import { WrongExpectedRevisionError } from '#warden/eventstore';
import { type Clock, type CommandContext } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { callbackDeliveryDecider } from '../domain/callback-delivery.decider.js';
import type { CallbackDeliveryRequested } from '../domain/callback-delivery.events.js';
import { deliveryStream } from '../domain/callbacks.streams.js';
import { CallbackDispatcher } from './callback-dispatcher.js';

export type DeliveryRequest = Omit<CallbackDeliveryRequested['data'], 'requestedAt' | 'nextAttemptAt'>;

/**
 * Records callback deliveries: one stream per delivery id, created once whatever re-runs (the
 * stream must not exist yet), then handed to the dispatcher at once.
 */
@Injectable()
export class DeliveryRequests {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly aggregates: AggregateStore,
    private readonly dispatcher: CallbackDispatcher,
  ) {}

  /** Whether the delivery was recorded now (false: it existed already). */
  async request(request: DeliveryRequest, context: CommandContext): Promise<boolean> {
    const now = this.clock.now().toISOString();
    const stream = deliveryStream(context.orgId, request.deliveryId);
    const key = { orgId: context.orgId, deliveryId: request.deliveryId };
    const decided = callbackDeliveryDecider.decide(
      { type: 'RequestDelivery', request: { ...request, requestedAt: now, nextAttemptAt: now } },
      callbackDeliveryDecider.initialState,
    );
    // Fresh event ids: a re-run must meet the existing stream as a conflict, not as an idempotent
    // replay, so that it never mistakes an old request for a new one (the delivery id is the key).
    try {
      const { nextRevision } = await this.aggregates.record(stream, decided, context, 'no_stream');
      this.dispatcher.accept(key, decided.reduce(callbackDeliveryDecider.evolve, callbackDeliveryDecider.initialState), nextRevision);
      return true;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      this.dispatcher.scheduleRecorded(key, now);
      return false;
    }
  }
}
