import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { TRANSPARENCY_PROJECTION } from '../../projections/transparency.projection.js';
import { type StatementFactsDoc, TRANSPARENCY_STATEMENTS } from '../../projections/transparency.read-model.js';
import { shownFacts, StatementViews } from '../list-statements/list-statements.handler.js';
import { statementCatalog } from '../statement-catalog.js';
import { ListItemStatementsQuery } from './list-item-statements.query.js';
import type { StatementView } from '../list-statements/list-statements.query.js';

/** An item is acted on a handful of times; a flood past this shows its newest. */
const MAX_ITEM_STATEMENTS = 200;

@QueryHandler(ListItemStatementsQuery)
export class ListItemStatementsHandler implements IQueryHandler<ListItemStatementsQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly queries: QueryBus,
  ) {}

  async execute(query: ListItemStatementsQuery): Promise<StatementView[]> {
    await this.projections.catchUp(TRANSPARENCY_PROJECTION);
    const catalog = await statementCatalog(this.queries, this.projections, query.orgId);
    const facts = await this.readStore.find<StatementFactsDoc>(
      TRANSPARENCY_STATEMENTS,
      { orgId: query.orgId, 'item.typeId': query.typeId, 'item.id': query.itemId },
      {
        sort: [
          { field: 'decidedAt', direction: 'desc' },
          { field: 'puid', direction: 'asc' },
        ],
        limit: MAX_ITEM_STATEMENTS,
      },
    );
    const views = new StatementViews(this.readStore, query.orgId, catalog);
    const out: StatementView[] = [];
    for (const f of await shownFacts(this.queries, query.orgId, facts, query.permissions)) {
      const view = await views.of(f);
      if (view) out.push(view);
    }
    return out;
  }
}
