import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export interface Invitation {
  readonly userId: string;
  /** The one-time token: shown once (in the link), only its hash is recorded. */
  readonly token: string;
  readonly expiresAt: string;
}

/**
 * Invites a person to the organization: creates the user (state invited, no password) when the
 * organization has none with the address, or renews the invitation of a user who has not accepted
 * yet (the earlier link stops working; no roles keep the user's). An address of an active or
 * disabled user of the organization is refused. An address another organization holds is invited
 * all the same, with the same answer: whether it exists elsewhere is no business of this
 * organization's admins, and the acceptance settles it (AcceptInvitationCommand).
 */
export class InviteUserCommand extends Command<Invitation> {
  constructor(
    readonly orgId: string,
    readonly email: string,
    readonly roles: readonly string[],
    readonly context: CommandContext,
  ) {
    super();
  }
}
