import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { CALLBACK_DELIVERIES_PROJECTION } from '../../projections/callback-deliveries.projection.js';
import { CALLBACK_DELIVERIES, type CallbackDeliveryDoc, deliveryDocId } from '../../projections/callback-deliveries.read-model.js';
import { itemDeliveryViewOf } from '../list-item-deliveries/list-item-deliveries.handler.js';
import type { ItemDeliveryView } from '../list-item-deliveries/list-item-deliveries.query.js';
import { GetDeliveriesQuery } from './get-deliveries.query.js';

/** From the deliveries read model by key, caught up first: a delivery requested moments ago is in it. */
@QueryHandler(GetDeliveriesQuery)
export class GetDeliveriesHandler implements IQueryHandler<GetDeliveriesQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: GetDeliveriesQuery): Promise<ItemDeliveryView[]> {
    if (query.deliveryIds.length === 0) return [];
    await this.projections.catchUp(CALLBACK_DELIVERIES_PROJECTION);
    const docs = await Promise.all(
      [...new Set(query.deliveryIds)].map((id) => this.readStore.get<CallbackDeliveryDoc>(CALLBACK_DELIVERIES, deliveryDocId(query.orgId, id))),
    );
    return docs.flatMap((d) => (d ? [itemDeliveryViewOf(d)] : []));
  }
}
