import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/**
 * A user appeal (docs/review.md, "Appeals"), as received: checked whole against the catalog, then
 * recorded as an AppealSubmitted on the appeal's own stream. All or nothing.
 */
export class SubmitAppealCommand extends Command<void> {
  constructor(
    readonly body: Record<string, unknown>,
    readonly context: CommandContext,
  ) {
    super();
  }
}
