import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { countUpTo, type Filter, type ReadStore } from '#warden/readstore';
import { READ_STORE } from '#warden/storage';
import { CALLBACK_DELIVERIES, type CallbackDeliveryDoc } from '../../projections/callback-deliveries.read-model.js';
import { type DeliveryPage, LISTED_DELIVERIES, ListDeliveriesQuery } from './list-deliveries.query.js';

@QueryHandler(ListDeliveriesQuery)
export class ListDeliveriesHandler implements IQueryHandler<ListDeliveriesQuery> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute(query: ListDeliveriesQuery): Promise<DeliveryPage> {
    const filter: Filter = query.status ? { orgId: query.orgId, status: query.status } : { orgId: query.orgId };
    const [found, count] = await Promise.all([
      // One more than the page: whether another follows, without counting them all.
      this.readStore.find<CallbackDeliveryDoc>(CALLBACK_DELIVERIES, filter, {
        sort: [{ field: 'requestedAt', direction: 'desc' }],
        limit: query.limit + 1,
        skip: query.offset,
      }),
      countUpTo(this.readStore, CALLBACK_DELIVERIES, filter, LISTED_DELIVERIES),
    ]);
    const docs = found.slice(0, query.limit);
    const next = query.offset + docs.length;
    return {
      // What a callback named is the job view's; this operator list stays as documented.
      deliveries: docs.map(({ orgId: _org, revision: _rev, policies: _policies, rules: _rules, ...view }) => view),
      total: count.total,
      totalExact: count.exact,
      limit: query.limit,
      offset: query.offset,
      nextOffset: found.length > query.limit && next <= query.maxOffset ? next : null,
    };
  }
}
