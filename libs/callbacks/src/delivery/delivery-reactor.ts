import { Logger } from '@nestjs/common';
import type { QueryBus } from '@nestjs/cqrs';
import { type CallbackDefinition, GetLiveEntitiesQuery } from '#warden/catalog';
import { orderingKey, type Projection } from '#warden/eventstore';
import { type RecordedEvent, recordedAs } from '#warden/kernel';
import type { UserStrikes } from '#warden/enforcement';
import { type ActionCallbackTrigger, buildActionCallbackBody } from '../domain/action-callback-body.js';
import type { ActionCallbackData, ActionCallbackRequested, DecisionActionCallback } from '../domain/action-callback.events.js';
import type { JsonBody } from '../domain/callback-body.model.js';
import type { CallbackDestination, CallbackTriggerKind } from '../domain/callback-delivery.events.js';
import { actionUserKey, type CallbackDispatcher } from './callback-dispatcher.js';
import type { DeliveryRequests } from './delivery-requests.js';

export const DELIVERY_REACTOR = 'callbacks-delivery';

/** The configured destination of a catalog callback; its URL and header values stay sealed as the catalog hands them out. */
export const destinationOf = (callback: CallbackDefinition | null | undefined): CallbackDestination | null => {
  if (!callback) return null;
  if (!callback.sealedUrl) throw new Error('The catalog handed out a callback whose URL is not sealed');
  return { url: callback.url, sealedUrl: callback.sealedUrl, headers: callback.headers as unknown as CallbackDestination['headers'] };
};

export function triggerOf(data: ActionCallbackData, userStrikeCount?: number | null): ActionCallbackTrigger {
  const base = { item: data.item, action: data.action, actionBody: data.custom, creator: data.creator, userStrikeCount };
  if (data.trigger === 'strike-threshold') return { ...base, kind: 'strike-threshold' };
  if (data.trigger === 'post-actions') return { ...base, kind: 'post-actions', policies: data.policies };
  // Decisions recorded before `trigger` was have none: their moderator's email tells them apart.
  const decision = data as DecisionActionCallback;
  if (data.trigger === 'decision' || typeof decision.actorEmail === 'string') {
    return {
      ...base,
      kind: 'decision',
      policies: decision.policies,
      rules: decision.rules,
      actorEmail: typeof decision.actorEmail === 'string' ? decision.actorEmail : '',
      actorNote: decision.actorNote,
      parameters: decision.parameters,
      decisionReason: decision.decisionReason,
      reportHistory: decision.reportHistory,
    };
  }
  return { ...base, kind: 'rule', policies: data.policies, rules: data.rules };
}

/**
 * What orders the reactor's events: a published action by its user (the strike count each carries
 * is decided in the user's log order, one at a time), or by its item when it has no user; a
 * delivery requested elsewhere by its own stream. So one user's flood of actions holds up no other
 * user's callbacks.
 */
export function deliveryOrderingKey(event: RecordedEvent): string {
  const published = recordedAs<ActionCallbackRequested>(event, 'ActionCallbackRequested');
  if (!published) return orderingKey(event, event.streamName);
  const { creator, item } = published.data;
  return orderingKey(event, actionUserKey(creator, item));
}

/**
 * The worker's delivery reactor: records a delivery for every published customer-defined action
 * (the delivery id comes with the publication, so a re-run finds it recorded), and wakes the
 * dispatcher for deliveries requested or restarted elsewhere (the CLI's appeal callbacks and
 * redeliveries). Delivering itself never holds up the reactor.
 */
export function deliveryReactor(deps: {
  requests: DeliveryRequests;
  dispatcher: CallbackDispatcher;
  queries: QueryBus;
  /** Enforcement's USER_STRIKES port; absent where no module counts strikes (CallbacksOptions.strikes). */
  strikes?: UserStrikes;
  /** This process starts running the reactor: start delivering and reload what is due. */
  activate?: () => Promise<void> | void;
  /** It stopped running here (shutdown, or another worker took over). */
  deactivate?: () => Promise<void> | void;
}): Projection {
  const logger = new Logger('callbacks');
  /**
   * The user's strikes after this action, asked of the module that counts them (enforcement's
   * USER_STRIKES): it applies the action's strikes first when its own reactor has not yet, so the
   * answer is the same whichever runs first, and on every re-run. Null: no user, or no module
   * counts strikes in this composition.
   */
  const strikeCountAfter = async (event: RecordedEvent, data: ActionCallbackData): Promise<number | null> => {
    if (!data.creator || !deps.strikes) return null;
    return deps.strikes.countAfter(event);
  };
  /** An action's configured destination; look-ups of one organization under way at once share one query. */
  const pending = new Map<string, Promise<Map<string, CallbackDestination | null>>>();
  const destinations = (orgId: string) => {
    let found = pending.get(orgId);
    if (!found) {
      found = deps.queries
        .execute(new GetLiveEntitiesQuery(orgId, 'action'))
        .then((actions) => new Map(actions.map((a) => [a.id, destinationOf(a.callback)])))
        .finally(() => pending.delete(orgId));
      pending.set(orgId, found);
    }
    return found;
  };
  const handle = async (event: RecordedEvent) => {
    const orgId = event.metadata.orgId;
    const published = recordedAs<ActionCallbackRequested>(event, 'ActionCallbackRequested');
    if (!published) {
      const data = event.data as { deliveryId: string; nextAttemptAt: string };
      deps.dispatcher.schedule({ orgId, deliveryId: data.deliveryId }, data.nextAttemptAt, event.revision);
      return;
    }
    const { data } = published;
    const trigger = triggerOf(data, (data.trigger === 'strike-threshold' ? data.userStrikeCount : null) ?? (await strikeCountAfter(event, data)));
    const body = buildActionCallbackBody(trigger);
    try {
      await deps.requests.request(
        {
          deliveryId: data.deliveryId,
          kind: 'action',
          trigger: trigger.kind satisfies CallbackTriggerKind,
          actionId: data.action.id,
          appealId: null,
          item: { id: data.item.id, typeId: data.item.typeId },
          destination: (await destinations(orgId)).get(data.action.id) ?? null,
          body: body as unknown as JsonBody,
          subject: ('subject' in data ? data.subject : null) ?? null,
          policies: body.policies.map((p) => ({ id: p.id, name: p.name })),
          rules: body.rules.map((r) => ({ id: r.id, name: r.name })),
        },
        { orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: 'callbacks' },
      );
    } catch (error) {
      logger.error({ msg: 'recording a callback delivery failed', orgId, deliveryId: data.deliveryId, error: String(error) });
      throw error;
    }
  };
  return {
    name: DELIVERY_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ActionCallbackRequested', 'CallbackDeliveryRequested', 'CallbackRedeliveryRequested'],
    // A decision's callback carries the merged reports (reportHistory), sealed in its event: the
    // delivery's body needs them opened (the delivery seals them again under the same subject).
    needsPersonalData: true,
    keyOf: deliveryOrderingKey,
    apply: handle,
    // A run of one user's actions at once: their strike counts are queued together by the write
    // path (one append), their deliveries are streams of their own.
    applyBatch: async (events) => {
      await Promise.all(events.map(handle));
    },
    activate: deps.activate,
    deactivate: deps.deactivate,
  };
}
