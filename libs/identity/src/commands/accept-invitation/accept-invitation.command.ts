import { Command } from '@nestjs/cqrs';
import type { UserView } from '../../queries/user-view.js';

/** Sets the password of an invited user through its one-time token; the user becomes active. */
export class AcceptInvitationCommand extends Command<UserView> {
  constructor(
    readonly token: string,
    readonly password: string,
    readonly correlationId: string,
  ) {
    super();
  }
}
