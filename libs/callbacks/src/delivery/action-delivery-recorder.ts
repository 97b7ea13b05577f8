import { Injectable, Logger } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { type CallbackDefinition, GetLiveEntitiesQuery } from '#warden/catalog';
import { type RecordedEvent, recordedAs } from '#warden/kernel';
import { type ActionCallbackTrigger, buildActionCallbackBody } from '../domain/action-callback-body.js';
import type { ActionCallbackData, ActionCallbackRequested, DecisionActionCallback } from '../domain/action-callback.events.js';
import type { JsonBody } from '../domain/callback-body.model.js';
import type { CallbackDestination, CallbackTriggerKind } from '../domain/callback-delivery.events.js';
import type { ActionDeliveries } from './action-deliveries.port.js';
import { DeliveryRequests } from './delivery-requests.js';

/** The configured destination of a catalog callback; its URL and header values stay sealed as the catalog hands them out. */
export const destinationOf = (callback: CallbackDefinition | null | undefined): CallbackDestination | null => {
  if (!callback) return null;
  if (!callback.sealedUrl) throw new Error('The catalog handed out a callback whose URL is not sealed');
  return { url: callback.url, sealedUrl: callback.sealedUrl, headers: callback.headers as unknown as CallbackDestination['headers'] };
};

export function triggerOf(data: ActionCallbackData, userStrikeCount?: number | null): ActionCallbackTrigger {
  const base = { item: data.item, action: data.action, actionBody: data.custom, creator: data.creator, userStrikeCount };
  if (data.trigger === 'strike-threshold') return { ...base, kind: 'strike-threshold' };
  // A bulk action's manager and reason (docs/bulk-actions.md); POST /api/v1/actions names neither.
  if (data.trigger === 'post-actions')
    return { ...base, kind: 'post-actions', policies: data.policies, actorEmail: data.actor?.email, decisionReason: data.decisionReason };
  // Decisions recorded before `trigger` was have none: their moderator's email tells them apart.
  const decision = data as DecisionActionCallback;
  if (data.trigger === 'decision' || typeof decision.actorEmail === 'string') {
    return {
      ...base,
      kind: 'decision',
      policies: decision.policies,
      rules: decision.rules,
      actorEmail: actorEmailOf(decision),
      actorNote: decision.actorNote,
      parameters: decision.parameters,
      decisionReason: decision.decisionReason,
      reportHistory: decision.reportHistory,
    };
  }
  return { ...base, kind: 'rule', policies: data.policies, rules: data.rules };
}

/** A decision's moderator email: `actor.email`, or `actorEmail` on decisions recorded before `actor` was; undefined once erased. */
const actorEmailOf = (decision: DecisionActionCallback): string | undefined => {
  const email = decision.actor ? decision.actor.email : decision.actorEmail;
  return typeof email === 'string' ? email : undefined;
};

/**
 * The console user whose key seals the delivery body's `actorEmail` (docs/gdpr.md): a decision's
 * moderator or a bulk action's manager, when the event names them and their email is still there
 * to seal (none: no new key for an erased account).
 */
const actorUserIdOf = (data: ActionCallbackData): string | undefined => {
  if (data.trigger === 'post-actions') return typeof data.actor?.email === 'string' ? data.actor.userId : undefined;
  const decision = data as DecisionActionCallback;
  return data.trigger === 'decision' && decision.actor && actorEmailOf(decision) ? decision.actor.userId : undefined;
};

/**
 * Turns a published action into its delivery: the body built from the event and the count, the
 * destination read from the catalog as it is now, the delivery recorded (DeliveryRequests).
 * Provided as ACTION_DELIVERIES, and used by this module's delivery reactor where no module
 * counts strikes.
 */
@Injectable()
export class ActionDeliveryRecorder implements ActionDeliveries {
  private readonly logger = new Logger('callbacks');
  /** Look-ups of one organization's destinations under way at once share one query. */
  private readonly pending = new Map<string, Promise<Map<string, CallbackDestination | null>>>();

  constructor(
    private readonly requests: DeliveryRequests,
    private readonly queries: QueryBus,
  ) {}

  async record(event: RecordedEvent, userStrikeCount: number | null): Promise<void> {
    const published = recordedAs<ActionCallbackRequested>(event, 'ActionCallbackRequested');
    if (!published) throw new Error(`Not a published action: ${event.type}`);
    const orgId = event.metadata.orgId;
    const { data } = published;
    const trigger = triggerOf(data, userStrikeCount);
    const body = buildActionCallbackBody(trigger);
    const actorUserId = actorUserIdOf(data);
    try {
      await this.requests.request(
        {
          deliveryId: data.deliveryId,
          kind: 'action',
          trigger: trigger.kind satisfies CallbackTriggerKind,
          actionId: data.action.id,
          appealId: null,
          item: { id: data.item.id, typeId: data.item.typeId },
          destination: (await this.destinations(orgId)).get(data.action.id) ?? null,
          body: body as unknown as JsonBody,
          subject: ('subject' in data ? data.subject : null) ?? null,
          ...(actorUserId !== undefined ? { actorUserId } : {}),
          policies: body.policies.map((p) => ({ id: p.id, name: p.name })),
          rules: body.rules.map((r) => ({ id: r.id, name: r.name })),
        },
        { orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: 'callbacks' },
      );
    } catch (error) {
      this.logger.error({ msg: 'recording a callback delivery failed', orgId, deliveryId: data.deliveryId, error: String(error) });
      throw error;
    }
  }

  private destinations(orgId: string): Promise<Map<string, CallbackDestination | null>> {
    let found = this.pending.get(orgId);
    if (!found) {
      found = this.queries
        .execute(new GetLiveEntitiesQuery(orgId, 'action'))
        .then((actions) => new Map(actions.map((a) => [a.id, destinationOf(a.callback)])))
        .finally(() => this.pending.delete(orgId));
      this.pending.set(orgId, found);
    }
    return found;
  }
}
