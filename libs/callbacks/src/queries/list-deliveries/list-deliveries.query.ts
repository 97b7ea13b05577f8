import { Query } from '@nestjs/cqrs';
import type { CallbackDeliveryDoc, ListedStatus } from '../../projections/callback-deliveries.read-model.js';

export type DeliveryView = Omit<CallbackDeliveryDoc, 'orgId' | 'revision' | 'policies' | 'rules'>;

export interface DeliveryPage {
  deliveries: DeliveryView[];
  total: number;
  limit: number;
  offset: number;
  nextOffset: number | null;
}

/** An organization's deliveries, newest request first; optionally only those in one status. */
export class ListDeliveriesQuery extends Query<DeliveryPage> {
  constructor(
    readonly orgId: string,
    readonly status: ListedStatus | undefined,
    readonly limit: number,
    readonly offset: number,
  ) {
    super();
  }
}
