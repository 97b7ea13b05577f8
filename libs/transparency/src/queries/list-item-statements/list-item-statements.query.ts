import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';
import type { StatementView } from '../list-statements/list-statements.query.js';

/** The statements of reasons of one item's restricting decisions, newest first (the console's job and item views). */
export class ListItemStatementsQuery extends Query<StatementView[]> {
  constructor(
    readonly orgId: string,
    readonly typeId: string,
    readonly itemId: string,
    /** The viewer's: without VIEW_CHILD_SAFETY_DATA, the statements of what a child-safety decision caused are left out. */
    readonly permissions: readonly Permission[],
  ) {
    super();
  }
}
