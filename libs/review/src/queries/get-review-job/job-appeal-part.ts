import { type QueryBus, QueryHandlerNotFoundException } from '@nestjs/cqrs';
import { recordedAs } from '#warden/kernel';
import { ListItemDeliveriesQuery, type ItemDeliveryView } from '#warden/callbacks';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import type { ReadStore } from '#warden/readstore';
import { GetUserStrikeHistoryQuery, type UserStrikeHistory } from '#warden/rules';
import type { EnqueueRequest, JobAppeal, ReviewJobDecided } from '../../domain/review-job.events.js';
import { reviewJobStream } from '../../domain/review.streams.js';
import { REVIEW_JOBS, type ReviewJobDoc } from '../../projections/review-jobs.read-model.js';
import { GetJobAppealQuery, type JobAppealDetails } from '../get-job-appeal/get-job-appeal.query.js';
import type { ActionCallbackView, AppealView, ItemRefView } from './review-job.view.js';

/** Decided jobs of the actioned item read to find which decision sent a callback (an item has few). */
const MAX_DECIDED_JOBS = 100;

export interface AppealPartDeps {
  readonly queries: QueryBus;
  readonly events: EventStore;
  readonly readStore: ReadStore;
}

/** A query another module answers; null where no module does (a deployment without it). */
async function ask<T>(queries: QueryBus, query: object): Promise<T | null> {
  try {
    return (await queries.execute(query as never)) as T;
  } catch (error) {
    if (error instanceof QueryHandlerNotFoundException) return null;
    throw error;
  }
}

/**
 * The `appeal` part of an appeal job's view: the appeal (appellant and reason from the appeals
 * module, unsealed for the viewer), each appealed action resolved to the callbacks Warden sent for
 * the item with that action id (from the callbacks module's deliveries), the decisions that sent
 * them (from this module's job streams), and the appellant's strikes (from enforcement). Every read
 * is scoped by the organization.
 */
export async function appealPartOf(deps: AppealPartDeps, orgId: string, item: ItemRefView, requests: readonly EnqueueRequest[]): Promise<AppealView | null> {
  const request = requests.find((r) => r.appeal);
  const appeal: JobAppeal | null | undefined = request?.appeal;
  if (!request || !appeal) return null;
  const [details, deliveries, policies, actions] = await Promise.all([
    ask<JobAppealDetails>(deps.queries, new GetJobAppealQuery(orgId, appeal.appealId)),
    ask<ItemDeliveryView[]>(deps.queries, new ListItemDeliveriesQuery(orgId, item)),
    deps.queries.execute(new GetLiveEntitiesQuery(orgId, 'policy')),
    deps.queries.execute(new GetLiveEntitiesQuery(orgId, 'action')),
  ]);
  const appealed = (deliveries ?? []).filter((d) => d.kind === 'action' && d.actionId !== null && appeal.actionsTaken.includes(d.actionId));
  const [decisions, strikes] = await Promise.all([
    appealed.some((d) => d.trigger === 'decision') ? decisionsByDelivery(deps, orgId, item) : Promise.resolve(new Map<string, DecisionRef>()),
    details ? ask<UserStrikeHistory>(deps.queries, new GetUserStrikeHistoryQuery(orgId, details.appellant)) : Promise.resolve(null),
  ]);
  const policyNames = new Map(policies.map((p) => [p.id, p.name]));
  const actionNames = new Map(actions.map((a) => [a.id, a.name]));
  return {
    appealId: appeal.appealId,
    appealedAt: request.at,
    appellant: details?.appellant ?? null,
    reason: details?.appealReason ?? null,
    violatingPolicies: appeal.violatingPolicyIds.map((id) => ({ id, name: policyNames.get(id) ?? null })),
    actionsTaken: appeal.actionsTaken.map((actionId) => ({
      actionId,
      actionName: actionNames.get(actionId) ?? null,
      callbacks: appealed.filter((d) => d.actionId === actionId).map((d) => callbackView(d, decisions.get(d.deliveryId) ?? null)),
    })),
    strikes: strikes ? { count: strikes.count, windowDays: strikes.windowDays, history: strikes.strikes } : null,
  };
}

type DecisionRef = NonNullable<ActionCallbackView['decision']>;

function callbackView(d: ItemDeliveryView, decision: DecisionRef | null): ActionCallbackView {
  return {
    deliveryId: d.deliveryId,
    trigger: d.trigger,
    policies: d.policies,
    rules: d.rules,
    decision,
    requestedAt: d.requestedAt,
    delivery: { status: d.status, attempts: d.totalAttempts, deliveredAt: d.deliveredAt, deadLetteredAt: d.deadLetteredAt },
  };
}

/**
 * Which decision requested each delivery: a decision lists the deliveries of its callbacks
 * (ReviewJobDecided.deliveryIds). The item's closed jobs come from the read model's item index;
 * each decision from its job's stream.
 */
async function decisionsByDelivery(deps: AppealPartDeps, orgId: string, item: ItemRefView): Promise<Map<string, DecisionRef>> {
  const closed = await deps.readStore.find<ReviewJobDoc>(
    REVIEW_JOBS,
    { orgId, itemTypeId: item.typeId, itemId: item.id, state: 'CLOSED' },
    // The newest first: the appealed decision is usually recent; closes without a moderator are skipped below.
    { sort: [{ field: 'decision.decidedAt', direction: 'desc' }], limit: MAX_DECIDED_JOBS },
  );
  const found = new Map<string, DecisionRef>();
  await Promise.all(
    closed
      .filter((job) => job.decision?.actorId != null)
      .map(async (job) => {
        for (const e of await deps.events.readStream(reviewJobStream(orgId, job.jobId))) {
          const decided = recordedAs<ReviewJobDecided>(e, 'ReviewJobDecided')?.data;
          if (!decided) continue;
          for (const deliveryId of decided.deliveryIds ?? []) {
            found.set(deliveryId, {
              decisionId: decided.decisionId,
              jobId: decided.jobId,
              moderatorId: decided.actor?.userId ?? null,
              decidedAt: decided.decidedAt,
            });
          }
        }
      }),
  );
  return found;
}
