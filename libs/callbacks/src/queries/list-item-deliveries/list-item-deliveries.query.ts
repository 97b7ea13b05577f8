import { Query } from '@nestjs/cqrs';
import type { CallbackKind, CallbackTriggerKind } from '../../domain/callback-delivery.events.js';
import type { ListedStatus } from '../../projections/callback-deliveries.read-model.js';

/** A callback Warden sent (or is sending) about one item, with what it named and how its delivery went. */
export interface ItemDeliveryView {
  deliveryId: string;
  kind: CallbackKind;
  trigger: CallbackTriggerKind;
  actionId: string | null;
  appealId: string | null;
  item: { id: string; typeId: string };
  policies: Array<{ id: string; name: string }>;
  rules: Array<{ id: string; name: string }>;
  status: ListedStatus;
  totalAttempts: number;
  requestedAt: string;
  deliveredAt: string | null;
  deadLetteredAt: string | null;
}

/**
 * The callbacks Warden requested for one item of an organization, oldest first, at most `limit`
 * (an item is actioned a handful of times; the bound keeps one answer one indexed read).
 */
export class ListItemDeliveriesQuery extends Query<ItemDeliveryView[]> {
  constructor(
    readonly orgId: string,
    readonly item: { readonly id: string; readonly typeId: string },
    readonly limit = 200,
  ) {
    super();
  }
}
