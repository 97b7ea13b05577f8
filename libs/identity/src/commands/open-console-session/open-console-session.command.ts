import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { SessionMethod } from '../../domain/user.events.js';
import type { UserView } from '../../queries/user-view.js';

/** A session just opened: its tokens are returned here once and recorded only as hashes. */
export interface OpenedConsoleSession {
  readonly sessionId: string;
  /** The `warden_session` cookie's value. */
  readonly token: string;
  /** What mutating requests send in `X-CSRF-Token`. */
  readonly csrfToken: string;
  readonly expiresAt: string;
  readonly user: UserView;
}

/**
 * Opens a console session for a user already authenticated (password checked, SAML assertion
 * validated); refused (401) unless the user is active.
 */
export class OpenConsoleSessionCommand extends Command<OpenedConsoleSession> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly method: SessionMethod,
    readonly context: CommandContext,
    /**
     * When the user proved who they are, if before now (a SAML assertion's AuthnInstant): what a
     * recent-sign-in check reads instead of the session's opening (docs/console-access.md).
     */
    readonly authenticatedAt?: string,
  ) {
    super();
  }
}
