import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** Disables a user and ends its sessions (their next request gets 401); idempotent. */
export class DisableUserCommand extends Command<void> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
