import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { BulkActionView } from '../../bulk/bulk-action-view.js';

/**
 * A manager asks for one action over many items (docs/bulk-actions.md, "Requests"), as received:
 * checked whole, then recorded as one bulk operation that the background reactor works through.
 * `requester` is the signed-in console user (the context's actor), with the email that the
 * executions' callbacks send as `actorEmail` (docs/callbacks.md).
 */
export class RequestBulkActionCommand extends Command<BulkActionView> {
  constructor(
    readonly body: Record<string, unknown>,
    readonly context: CommandContext,
    readonly requester: { readonly userId: string; readonly email: string },
  ) {
    super();
  }
}
