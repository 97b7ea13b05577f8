import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export interface DisableUserOptions {
  /**
   * Leave the organization's last active ADMIN enabled, whoever asks: a GDPR deletion does, so that
   * someone can still manage the organization (docs/gdpr.md, "What stays"). Without it only an
   * admin disabling themselves is held back (LastAdminSafeguard.check).
   */
  readonly keepLastAdmin?: boolean;
}

/**
 * Disables a user and ends its sessions (their next request gets 401); idempotent. Answers whether
 * the user is disabled now (false: kept as the last active ADMIN, with `keepLastAdmin`).
 */
export class DisableUserCommand extends Command<boolean> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly context: CommandContext,
    readonly options: DisableUserOptions = {},
  ) {
    super();
  }
}
