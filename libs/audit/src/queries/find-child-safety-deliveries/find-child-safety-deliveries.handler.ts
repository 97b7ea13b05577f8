import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { seesChildSafety } from '#warden/review/contracts';
import { InvestigationReader } from '../../investigate/investigation-reader.js';
import { FindChildSafetyDeliveriesQuery } from './find-child-safety-deliveries.query.js';

/**
 * From the index's record of each delivery's stream. The index is built in the background: a
 * delivery it has not seen yet (requested a moment ago) is counted as a child-safety one rather
 * than shown, until it has. Not caught up here: in a burst the index runs seconds behind the log,
 * and the job view would wait for all of it.
 */
@QueryHandler(FindChildSafetyDeliveriesQuery)
export class FindChildSafetyDeliveriesHandler implements IQueryHandler<FindChildSafetyDeliveriesQuery> {
  constructor(private readonly reader: InvestigationReader) {}

  async execute({ orgId, deliveryIds, permissions }: FindChildSafetyDeliveriesQuery): Promise<string[]> {
    if (seesChildSafety(permissions) || deliveryIds.length === 0) return [];
    const ids = [...new Set(deliveryIds)];
    const answers = await Promise.all(ids.map(async (id) => [id, await this.reader.childSafetyDelivery(orgId, id)] as const));
    return answers.flatMap(([id, hidden]) => (hidden !== false ? [id] : []));
  }
}
