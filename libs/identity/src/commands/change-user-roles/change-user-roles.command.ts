import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** Replaces a user's roles; takes effect on the user's next request (sessions read the aggregate). */
export class ChangeUserRolesCommand extends Command<void> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly roles: readonly string[],
    readonly context: CommandContext,
  ) {
    super();
  }
}
