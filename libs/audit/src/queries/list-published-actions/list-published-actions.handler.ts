import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { EventStore } from '#warden/eventstore';
import type { ReadStore } from '#warden/readstore';
import { EVENT_STORE, READ_STORE } from '#warden/storage';
import { ITEM_HISTORY, type ItemHistoryDoc } from '../../history/item-history.projection.js';
import { InvestigationReader, shownEntries } from '../../investigate/investigation-reader.js';
import { ListPublishedActionsQuery, type PublishedActionEntry } from './list-published-actions.query.js';

type Ref = { id: string; typeId: string };
type Named = Array<{ id: string; name: string }>;

/**
 * An entry of the index names every item and user its event's stream concerns: a decision's action,
 * published in the job's stream, is also indexed under the job's reporters. Those are skipped, so a
 * few more entries than asked are read.
 */
const OVERREAD = 3;

const isRef = (value: unknown): value is Ref =>
  typeof value === 'object' && value !== null && typeof (value as Ref).id === 'string' && typeof (value as Ref).typeId === 'string';
const named = (value: unknown): Named =>
  Array.isArray(value)
    ? value.flatMap((v: { id?: unknown; name?: unknown } | null) =>
        typeof v?.id === 'string' && typeof v.name === 'string' ? [{ id: v.id, name: v.name }] : [],
      )
    : [];

/**
 * From the item-history index's (orgId, typeId, itemId, type, position) index, without waiting for
 * it (it is built in the background): a view opened a moment after an action may miss it.
 */
@QueryHandler(ListPublishedActionsQuery)
export class ListPublishedActionsHandler implements IQueryHandler<ListPublishedActionsQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly reader: InvestigationReader,
  ) {}

  async execute(query: ListPublishedActionsQuery): Promise<PublishedActionEntry[]> {
    const { orgId, ref, limit, permissions } = query;
    const docs = await this.readStore.find<ItemHistoryDoc>(
      ITEM_HISTORY,
      { orgId, typeId: ref.typeId, itemId: ref.id, type: 'ActionCallbackRequested' },
      { sort: [{ field: 'position', direction: 'desc' }], limit: limit * OVERREAD },
    );
    const read = await this.reader.childSafetyFilter(
      permissions,
      orgId,
    )(
      (
        await Promise.all(
          shownEntries(docs, permissions).map(async (doc) => (await this.events.readStream(doc.stream, { fromRevision: doc.revision, maxCount: 1 }))[0]),
        )
      ).filter((e) => e !== undefined),
    );
    const same = (value: unknown) => isRef(value) && value.id === ref.id && value.typeId === ref.typeId;
    const entries: PublishedActionEntry[] = [];
    for (const event of read) {
      if (event.type !== 'ActionCallbackRequested') continue;
      const data = event.data as { [key: string]: unknown };
      const { item, creator, action, deliveryId } = data;
      if (!isRef(item) || typeof deliveryId !== 'string' || typeof (action as { id?: unknown } | undefined)?.id !== 'string') continue;
      if (!same(item) && !same(creator)) continue;
      // Identical content sent again publishes its action again under the same delivery: one action.
      if (entries.some((e) => e.deliveryId === deliveryId)) continue;
      entries.push({
        deliveryId,
        item: { id: item.id, typeId: item.typeId },
        creator: isRef(creator) ? { id: creator.id, typeId: creator.typeId } : null,
        actionId: (action as { id: string }).id,
        trigger: typeof data['trigger'] === 'string' ? data['trigger'] : 'rule',
        environment: typeof data['environment'] === 'string' ? data['environment'] : null,
        policies: named(data['policies']),
        rules: named(data['rules']),
        publishedAt: event.metadata.occurredAt,
      });
      if (entries.length === limit) break;
    }
    return entries;
  }
}
