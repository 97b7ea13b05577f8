import type { QueryBus } from '@nestjs/cqrs';
import { FindChildSafetyDeliveriesQuery, FindShownStrikesQuery } from '#warden/audit/contracts';
import type { Permission } from '#warden/identity/contracts';
import { ListItemDeliveriesQuery, type ItemDeliveryView } from '#warden/callbacks';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import type { ReadStore } from '#warden/readstore';
import type { UserStrikes } from '#warden/enforcement';
import type { EnqueueRequest, JobAppeal } from '../../domain/review-job.events.js';
import { REVIEW_JOBS, type ReviewJobDoc } from '../../projections/review-jobs.read-model.js';
import type { JobAppeals } from '../../job-appeals.port.js';
import { recordedDecision } from '../../job-decision.js';
import type { ActionCallbackView, AppealView, ItemRefView } from './review-job.view.js';

/** Decided jobs of the actioned item read to find which decision sent a callback (an item has few). */
const MAX_DECIDED_JOBS = 100;

export interface AppealPartDeps {
  readonly queries: QueryBus;
  readonly events: EventStore;
  readonly readStore: ReadStore;
  /** Review's JOB_APPEALS port (the appeals module); without it no appellant or reason is shown. */
  readonly appeals?: JobAppeals | undefined;
  /** Enforcement's USER_STRIKES port; without it no strikes are shown. */
  readonly strikes?: UserStrikes | undefined;
}

/**
 * The `appeal` part of an appeal job's view: the appeal (appellant and reason from the appeals
 * module's side of JOB_APPEALS, unsealed for the viewer), each appealed action resolved to the callbacks Warden sent for
 * the item with that action id (from the callbacks module's deliveries), the decisions that sent
 * them (from this module's job streams), and the appellant's strikes (enforcement's USER_STRIKES). Every read
 * is scoped by the organization. Without VIEW_CHILD_SAFETY_DATA among `permissions`, the callbacks
 * a child-safety decision sent (and so that decision) are not listed, as in the actions part, nor
 * the strikes it applied, and no strike's count after it (as Investigate lists them).
 */
export async function appealPartOf(
  deps: AppealPartDeps,
  orgId: string,
  item: ItemRefView,
  requests: readonly EnqueueRequest[],
  permissions: readonly Permission[],
): Promise<AppealView | null> {
  const request = requests.find((r) => r.appeal);
  const appeal: JobAppeal | null | undefined = request?.appeal;
  if (!request || !appeal) return null;
  const [details, deliveries, policies, actions] = await Promise.all([
    deps.appeals ? deps.appeals.details(orgId, appeal.appealId) : null,
    deps.queries.execute(new ListItemDeliveriesQuery(orgId, item)),
    deps.queries.execute(new GetLiveEntitiesQuery(orgId, 'policy')),
    deps.queries.execute(new GetLiveEntitiesQuery(orgId, 'action')),
  ]);
  const candidates = deliveries.filter((d) => d.kind === 'action' && d.actionId !== null && appeal.actionsTaken.includes(d.actionId));
  // Without VIEW_CHILD_SAFETY_DATA, not what a child-safety decision published (nor its decision), as the actions part leaves it out.
  const reviewed = candidates.filter((d) => d.trigger === 'decision' || d.trigger === 'strike-threshold').map((d) => d.deliveryId);
  const hidden = new Set(reviewed.length > 0 ? await deps.queries.execute(new FindChildSafetyDeliveriesQuery(orgId, reviewed, permissions)) : []);
  const appealed = candidates.filter((d) => !hidden.has(d.deliveryId));
  const [decisions, strikes] = await Promise.all([
    appealed.some((d) => d.trigger === 'decision') ? decisionsByDelivery(deps, orgId, item) : Promise.resolve(new Map<string, DecisionRef>()),
    details && deps.strikes ? deps.strikes.history(orgId, details.appellant) : null,
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
    strikes:
      strikes && details
        ? {
            count: strikes.count,
            windowDays: strikes.windowDays,
            // Without VIEW_CHILD_SAFETY_DATA, as Investigate lists them: not a child-safety decision's, and no count after any.
            history: await deps.queries.execute(new FindShownStrikesQuery(orgId, details.appellant, strikes.strikes, permissions)),
          }
        : null,
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
        const decided = await recordedDecision(deps.events, orgId, job.jobId);
        for (const deliveryId of decided?.deliveryIds ?? []) {
          found.set(deliveryId, {
            decisionId: decided!.decisionId,
            jobId: decided!.jobId,
            moderatorId: decided!.actor?.userId ?? null,
            decidedAt: decided!.decidedAt,
          });
        }
      }),
  );
  return found;
}
