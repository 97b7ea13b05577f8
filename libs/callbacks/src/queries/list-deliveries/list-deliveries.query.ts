import { Query } from '@nestjs/cqrs';
import type { CallbackDeliveryDoc, ListedStatus } from '../../projections/callback-deliveries.read-model.js';

export type DeliveryView = Omit<CallbackDeliveryDoc, 'orgId' | 'revision' | 'policies' | 'rules'>;

/**
 * Deliveries counted for a page's `total`, and the deepest `offset` the HTTP routes take: a page
 * costs what the newest 10,000 do, however many a rule firing all day has made (a count of a
 * million took 44-68 ms, synchronous on SQLite, on every page).
 */
export const LISTED_DELIVERIES = 10_000;

export interface DeliveryPage {
  deliveries: DeliveryView[];
  /** Matching deliveries, counted up to LISTED_DELIVERIES. */
  total: number;
  /** False when more match than `total` says. */
  totalExact: boolean;
  limit: number;
  offset: number;
  nextOffset: number | null;
}

/**
 * An organization's deliveries, newest request first; optionally only those in one status. No
 * `nextOffset` past `maxOffset` (the HTTP routes': LISTED_DELIVERIES; the CLI pages on).
 */
export class ListDeliveriesQuery extends Query<DeliveryPage> {
  constructor(
    readonly orgId: string,
    readonly status: ListedStatus | undefined,
    readonly limit: number,
    readonly offset: number,
    readonly maxOffset: number = LISTED_DELIVERIES,
  ) {
    super();
  }
}
