import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { EventStore } from '#warden/eventstore';
import { idProblem, invalidInput, notFound, type RecordedEvent } from '#warden/kernel';
import type { Filter, ReadStore } from '#warden/readstore';
import { EVENT_STORE, ProjectionHost, READ_STORE, STORAGE, type Storage } from '#warden/storage';
import { historyEntry } from '../../history/history-entry.js';
import { readHistoryEvent } from '../../history/history-events.js';
import { ITEM_HISTORY, ITEM_HISTORY_PROJECTION, type ItemHistoryDoc } from '../../history/item-history.projection.js';
import { GetItemHistoryQuery, type ItemHistoryPage } from './get-item-history.query.js';

@QueryHandler(GetItemHistoryQuery)
export class GetItemHistoryHandler implements IQueryHandler<GetItemHistoryQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(STORAGE) private readonly storage: Storage,
  ) {}

  /**
   * The index gives where each event is; the events themselves are read from the log (current
   * shape, personal fields opened), so the history says exactly what the log says.
   */
  async execute(query: GetItemHistoryQuery): Promise<ItemHistoryPage> {
    const problems = (['typeId', 'id'] as const).flatMap((field) => {
      const problem = idProblem(query[field]);
      return problem ? [{ title: 'Invalid id', pointer: `/${field}`, detail: problem }] : [];
    });
    if (query.after !== undefined && query.offset > 0)
      problems.push({ title: 'Invalid page', pointer: '/after', detail: 'give either after or offset, not both' });
    if (problems.length > 0) throw invalidInput(...problems);
    const filter = { orgId: query.orgId, typeId: query.typeId, itemId: query.id };
    let docs = await this.page(filter, query);
    if (docs.length === 0 && query.offset === 0 && query.after === undefined) {
      // Submitted a moment ago: the index is brought up to the log before answering 404.
      await this.projections.catchUp(ITEM_HISTORY_PROJECTION);
      docs = await this.page(filter, query);
      if (docs.length === 0) throw notFound(`No history of ${query.typeId} ${query.id}`);
    }
    const more = docs.length > query.limit;
    const shown = docs.slice(0, query.limit);
    const entries = [];
    for (const doc of shown) {
      const event = await this.read(doc, query.personalData);
      if (event) entries.push(historyEntry(event));
    }
    return {
      item: { typeId: query.typeId, id: query.id },
      entries,
      next: more && query.after === undefined ? query.offset + query.limit : null,
      nextAfter: more ? shown.at(-1)!.position : null,
    };
  }

  private read(doc: ItemHistoryDoc, personalData: boolean): Promise<RecordedEvent | undefined> {
    return readHistoryEvent(this.events, this.storage, doc, personalData);
  }

  private page(filter: Record<string, string>, query: GetItemHistoryQuery): Promise<ItemHistoryDoc[]> {
    // After a position: a range of the (orgId, typeId, itemId, position) index, read from its start.
    const bounded: Filter = query.after === undefined ? filter : { ...filter, position: { gte: query.after + 1 } };
    return this.readStore.find<ItemHistoryDoc & Record<string, never>>(ITEM_HISTORY, bounded, {
      sort: [{ field: 'position', direction: 'asc' }],
      skip: query.offset,
      limit: query.limit + 1,
    });
  }
}
