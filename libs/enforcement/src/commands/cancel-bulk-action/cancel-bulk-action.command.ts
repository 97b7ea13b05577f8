import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { BulkActionView } from '../../bulk/bulk-action-view.js';

/** A manager stops a bulk operation: no further chunk starts; what was executed stays (docs/bulk-actions.md, "Cancelling"). */
export class CancelBulkActionCommand extends Command<BulkActionView> {
  constructor(
    readonly bulkActionId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
