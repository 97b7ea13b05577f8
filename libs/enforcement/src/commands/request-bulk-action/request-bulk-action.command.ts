import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { BulkActionView } from '../../bulk/bulk-action-view.js';

/**
 * A manager asks for one action over many items (docs/bulk-actions.md, "Requests"), as received:
 * checked whole, then recorded as one bulk operation that the background reactor works through.
 */
export class RequestBulkActionCommand extends Command<BulkActionView> {
  constructor(
    readonly body: Record<string, unknown>,
    readonly context: CommandContext,
  ) {
    super();
  }
}
