import { Inject, Injectable } from '@nestjs/common';
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
    // Created once: on a stream that exists already (a re-run) the decider records nothing. Fresh
    // event ids: a re-run racing the first request conflicts and decides again, never passes as a replay.
    const { events, state, revision } = await this.aggregates.handle(
      stream,
      callbackDeliveryDecider,
      { type: 'RequestDelivery', request: { ...request, requestedAt: now, nextAttemptAt: now } },
      context,
      // One stream per delivery, requested once (a redelivered request finds it and appends nothing).
      { newStream: true },
    );
    if (events.length === 0) {
      this.dispatcher.scheduleRecorded(key, now);
      return false;
    }
    this.dispatcher.accept(key, state, revision);
    return true;
  }
}
