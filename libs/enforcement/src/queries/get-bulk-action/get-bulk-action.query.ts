import { Query } from '@nestjs/cqrs';
import type { BulkActionView } from '../../bulk/bulk-action-view.js';

/** One bulk operation of the organization and its progress, read from its stream (never behind). */
export class GetBulkActionQuery extends Query<BulkActionView> {
  constructor(
    readonly orgId: string,
    readonly bulkActionId: string,
  ) {
    super();
  }
}
