import { Query } from '@nestjs/cqrs';
import type { StatementView } from '../list-statements/list-statements.query.js';

/** The statements of reasons of one item's restricting decisions, newest first (the console's job and item views). */
export class ListItemStatementsQuery extends Query<StatementView[]> {
  constructor(
    readonly orgId: string,
    readonly typeId: string,
    readonly itemId: string,
  ) {
    super();
  }
}
