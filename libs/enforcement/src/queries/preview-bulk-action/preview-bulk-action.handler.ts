import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { itemStream } from '#warden/ingestion/contracts';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { checkedBulkAction } from '../../bulk/bulk-action-check.js';
import { actionExecutionStream } from '../../domain/action-execution.streams.js';
import { bulkExecutionId } from '../../domain/bulk-action.streams.js';
import { type BulkActionPreview, type BulkActionPreviewCounts, PreviewBulkActionQuery } from './preview-bulk-action.query.js';

/**
 * Items looked up at once, in one turn of the event loop: up to two look-ups of a stream's last
 * revision each (the item, then the execution), no event read. On the embedded store a look-up is
 * synchronous, so the handler yields to the event loop between batches: 10,000 items are 50 short
 * turns rather than one long one (docs/bulk-actions.md, "Preview").
 */
export const PREVIEW_BATCH = 200;

type Counts = { -readonly [K in keyof BulkActionPreviewCounts]: number };
const zero = (): Counts => ({ items: 0, existing: 0, missing: 0, newActions: 0, alreadyActioned: 0 });

@QueryHandler(PreviewBulkActionQuery)
export class PreviewBulkActionHandler implements IQueryHandler<PreviewBulkActionQuery> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
  ) {}

  async execute(query: PreviewBulkActionQuery): Promise<BulkActionPreview> {
    const { orgId } = query;
    const input = await checkedBulkAction(this.queries, orgId, query.body, this.config.maxItemsPerRequest);
    const policyIds = input.policies.map((p) => p.id);
    const total = zero();
    const byType = new Map<string, Counts>();
    for (let i = 0; i < input.items.length; i += PREVIEW_BATCH) {
      // Promise.all alone would yield to microtasks only: other requests wait for the next turn.
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      const slice = input.items.slice(i, i + PREVIEW_BATCH);
      // What the runner will find: the item stored here, and the execution it would make recorded already or not.
      const found = await Promise.all(
        slice.map(async (item) => {
          if (!(await this.aggregates.exists(itemStream(orgId, item.typeId, item.id)))) return 'missing' as const;
          const executionId = bulkExecutionId(orgId, input.action.id, policyIds, input.reason, item);
          return (await this.aggregates.exists(actionExecutionStream(orgId, executionId))) ? ('alreadyActioned' as const) : ('newActions' as const);
        }),
      );
      slice.forEach((item, k) => {
        const counts = byType.get(item.typeId) ?? byType.set(item.typeId, zero()).get(item.typeId)!;
        for (const c of [counts, total]) {
          c.items++;
          c[found[k]!]++;
          if (found[k] !== 'missing') c.existing++;
        }
      });
    }
    return { ...total, duplicates: input.duplicates, byType: [...byType].map(([typeId, counts]) => ({ typeId, ...counts })) };
  }
}
