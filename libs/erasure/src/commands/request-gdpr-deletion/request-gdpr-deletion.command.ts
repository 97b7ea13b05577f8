import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** Erase a user's personal data (POST /api/v1/gdpr/delete); answers the deletion's request id. */
export class RequestGdprDeletionCommand extends Command<{ requestId: string }> {
  constructor(
    readonly user: { readonly id: string; readonly typeId: string },
    readonly context: CommandContext,
    /** The same person's console account, named by its email (optional). */
    readonly consoleEmail?: string,
  ) {
    super();
  }
}
