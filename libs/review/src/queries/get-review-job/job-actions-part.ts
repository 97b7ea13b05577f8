import type { QueryBus } from '@nestjs/cqrs';
import { FindChildSafetyDeliveriesQuery, ListPublishedActionsQuery } from '#warden/audit/contracts';
import { GetDeliveriesQuery, type ItemDeliveryView, ListItemDeliveriesQuery } from '#warden/callbacks';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import type { Permission } from '#warden/identity/contracts';
import type { ItemRefView, PublishedActionView } from './review-job.view.js';

/** The item's own actions shown (newest), and the creator's. */
const MAX_ITEM_ACTIONS = 50;
const MAX_CREATOR_ACTIONS = 20;

/**
 * The `actions` part of the job view: what Warden already did. The item's actions are its
 * action callbacks (every published action has one) from the callbacks module's deliveries; the
 * creator's, from the audit module's index of what happened to a user's items, each with its
 * delivery's state by id. Ids and names only: no personal data, so an erased creator's actions
 * still show. Without VIEW_CHILD_SAFETY_DATA among the viewer's `permissions`, neither shows what a
 * child-safety job's decision published or caused (a strike threshold it crossed): the audit's
 * index says which, for the deliveries of a decision or a threshold (a rule's or the platform's
 * never are).
 */
export async function actionsPartOf(
  queries: QueryBus,
  orgId: string,
  item: ItemRefView,
  creator: ItemRefView | null,
  permissions: readonly Permission[],
): Promise<{ item: PublishedActionView[]; creator: PublishedActionView[] }> {
  const [listed, published, actions] = await Promise.all([
    queries.execute(new ListItemDeliveriesQuery(orgId, item, MAX_ITEM_ACTIONS)),
    creator ? queries.execute(new ListPublishedActionsQuery(orgId, creator, MAX_CREATOR_ACTIONS, permissions)) : Promise.resolve(null),
    queries.execute(new GetLiveEntitiesQuery(orgId, 'action')),
  ]);
  const reviewed = listed.filter((d) => d.trigger === 'decision' || d.trigger === 'strike-threshold').map((d) => d.deliveryId);
  const hidden = new Set(reviewed.length > 0 ? await queries.execute(new FindChildSafetyDeliveriesQuery(orgId, reviewed, permissions)) : []);
  const deliveries = listed.filter((d) => !hidden.has(d.deliveryId));
  const names = new Map(actions.map((a) => [a.id, a.name]));
  const creatorDeliveries = published?.length
    ? await queries.execute(
        new GetDeliveriesQuery(
          orgId,
          published.map((p) => p.deliveryId),
        ),
      )
    : null;
  const byId = new Map((creatorDeliveries ?? []).map((d) => [d.deliveryId, d]));
  return {
    item: deliveries
      .filter((d) => d.kind === 'action' && d.actionId !== null)
      .reverse()
      .map((d) => ({
        deliveryId: d.deliveryId,
        item: { id: d.item.id, typeId: d.item.typeId },
        actionId: d.actionId!,
        actionName: names.get(d.actionId!) ?? null,
        trigger: d.trigger,
        policies: d.policies,
        rules: d.rules,
        requestedAt: d.requestedAt,
        delivery: deliveryOf(d),
      })),
    creator: (published ?? []).map((p) => {
      const d = byId.get(p.deliveryId);
      return {
        deliveryId: p.deliveryId,
        item: { id: p.item.id, typeId: p.item.typeId },
        actionId: p.actionId,
        actionName: names.get(p.actionId) ?? null,
        trigger: p.trigger,
        policies: p.policies.map((x) => ({ id: x.id, name: x.name })),
        rules: p.rules.map((x) => ({ id: x.id, name: x.name })),
        requestedAt: d?.requestedAt ?? p.publishedAt,
        delivery: d ? deliveryOf(d) : null,
      };
    }),
  };
}

function deliveryOf(d: ItemDeliveryView): NonNullable<PublishedActionView['delivery']> {
  return { status: d.status, attempts: d.totalAttempts, deliveredAt: d.deliveredAt, deadLetteredAt: d.deadLetteredAt };
}
