import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** Sets (or replaces) a user's password; an invited user becomes active. */
export class SetUserPasswordCommand extends Command<void> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly password: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
