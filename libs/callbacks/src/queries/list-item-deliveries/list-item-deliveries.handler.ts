import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { CALLBACK_DELIVERIES_PROJECTION } from '../../projections/callback-deliveries.projection.js';
import { CALLBACK_DELIVERIES, type CallbackDeliveryDoc } from '../../projections/callback-deliveries.read-model.js';
import { type ItemDeliveryView, ListItemDeliveriesQuery } from './list-item-deliveries.query.js';

/** From the deliveries read model's (orgId, item) index, caught up first: a callback sent moments ago is in it. */
@QueryHandler(ListItemDeliveriesQuery)
export class ListItemDeliveriesHandler implements IQueryHandler<ListItemDeliveriesQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: ListItemDeliveriesQuery): Promise<ItemDeliveryView[]> {
    await this.projections.catchUp(CALLBACK_DELIVERIES_PROJECTION);
    const docs = await this.readStore.find<CallbackDeliveryDoc>(
      CALLBACK_DELIVERIES,
      { orgId: query.orgId, 'item.typeId': query.item.typeId, 'item.id': query.item.id },
      // The newest `limit` (those most likely appealed), answered oldest first.
      { sort: [{ field: 'requestedAt', direction: 'desc' }], limit: query.limit },
    );
    return docs.reverse().map(itemDeliveryViewOf);
  }
}

/** What a delivery's document shows of it (never its destination, body or errors). */
export function itemDeliveryViewOf(d: CallbackDeliveryDoc): ItemDeliveryView {
  return {
    deliveryId: d.deliveryId,
    kind: d.kind,
    trigger: d.trigger,
    actionId: d.actionId,
    appealId: d.appealId,
    item: { id: d.item.id, typeId: d.item.typeId },
    policies: d.policies ?? [],
    rules: d.rules ?? [],
    status: d.status,
    totalAttempts: d.totalAttempts,
    requestedAt: d.requestedAt,
    deliveredAt: d.deliveredAt,
    deadLetteredAt: d.deadLetteredAt,
  };
}
