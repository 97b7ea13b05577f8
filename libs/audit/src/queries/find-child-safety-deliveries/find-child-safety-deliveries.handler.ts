import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CHILD_SAFETY_QUEUE_ID } from '#warden/catalog';
import { queueVisibleTo } from '#warden/review/contracts';
import { ProjectionHost } from '#warden/storage';
import { ITEM_HISTORY_PROJECTION } from '../../history/item-history.projection.js';
import { InvestigationReader } from '../../investigate/investigation-reader.js';
import { FindChildSafetyDeliveriesQuery } from './find-child-safety-deliveries.query.js';

/**
 * From the index's record of each delivery's stream. The index is built in the background: a
 * delivery it has not seen yet (requested a moment ago) brings it up to the log first, once, and
 * one it has still not seen is counted as a child-safety one rather than shown.
 */
@QueryHandler(FindChildSafetyDeliveriesQuery)
export class FindChildSafetyDeliveriesHandler implements IQueryHandler<FindChildSafetyDeliveriesQuery> {
  constructor(
    private readonly reader: InvestigationReader,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute({ orgId, deliveryIds, permissions }: FindChildSafetyDeliveriesQuery): Promise<string[]> {
    if (queueVisibleTo(permissions, CHILD_SAFETY_QUEUE_ID) || deliveryIds.length === 0) return [];
    const ids = [...new Set(deliveryIds)];
    const known = async (list: readonly string[]) => Promise.all(list.map(async (id) => [id, await this.reader.childSafetyDelivery(orgId, id)] as const));
    let answers = await known(ids);
    if (answers.some(([, hidden]) => hidden === null)) {
      await this.projections.catchUp(ITEM_HISTORY_PROJECTION);
      answers = await known(ids);
    }
    return answers.flatMap(([id, hidden]) => (hidden !== false ? [id] : []));
  }
}
