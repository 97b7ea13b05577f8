import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** Ends a session (logout); idempotent. The context's actor is who closed it. */
export class CloseConsoleSessionCommand extends Command<void> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly sessionId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
