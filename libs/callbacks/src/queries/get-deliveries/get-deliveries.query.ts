import { Query } from '@nestjs/cqrs';
import type { ItemDeliveryView } from '../list-item-deliveries/list-item-deliveries.query.js';

/**
 * Deliveries of an organization by their ids (a published action names its delivery), in the
 * order asked; ids with no delivery (yet) are left out. One read by key each.
 */
export class GetDeliveriesQuery extends Query<ItemDeliveryView[]> {
  constructor(
    readonly orgId: string,
    readonly deliveryIds: readonly string[],
  ) {
    super();
  }
}
