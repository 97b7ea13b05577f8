import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type Clock, DomainError, unauthorized } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { registryContext, userEmailStream, userStream } from '../../domain/identity.streams.js';
import { hashInvitationToken, invitationTarget } from '../../domain/invitation-token.js';
import { checkedPassword } from '../../domain/password-policy.js';
import { openInvitation, userDecider, userEmailDecider } from '../../domain/user.decider.js';
import { PasswordHashing } from '../../password-hashing.js';
import { toUserView, type UserView } from '../../queries/user-view.js';
import { AcceptInvitationCommand } from './accept-invitation.command.js';

const REFUSED = 'The invitation is unknown, already used or expired';

@CommandHandler(AcceptInvitationCommand)
export class AcceptInvitationHandler implements ICommandHandler<AcceptInvitationCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly passwords: PasswordHashing,
  ) {}

  async execute(command: AcceptInvitationCommand): Promise<UserView> {
    const target = invitationTarget(command.token);
    if (target === null) throw unauthorized(REFUSED);
    const { orgId, userId } = target;
    const stream = userStream(orgId, userId);
    const tokenHash = hashInvitationToken(command.token);
    const now = this.clock.now().toISOString();
    // An unknown user answers like a wrong token (openInvitation): a token reveals nothing it does not open.
    const invited = openInvitation(await this.aggregates.state(stream, userDecider), orgId, tokenHash, now);
    // The invited address is among the words the new password may not be built on.
    const password = await checkedPassword(command.password, { email: invited.email });
    // Hashed before the address is claimed: the claim and the acceptance follow each other at
    // once, so an invitation renewed or disabled meanwhile (the acceptance then refused, the
    // claim made) has a window of two appends, not of a scrypt hash (a third of a second).
    const passwordHash = await this.passwords.hash(password);
    // The address becomes this user's before the password is recorded: against another
    // organization's account the acceptance is refused here (409, said to the person accepting),
    // and nothing is written.
    const context = { orgId, correlationId: command.correlationId, actor: `user:${userId}` };
    await this.aggregates.handle(
      userEmailStream(invited.emailDigest),
      userEmailDecider,
      { type: 'AcceptUserEmail', emailDigest: invited.emailDigest, userId, orgId },
      registryContext(context),
      { retries: 1 },
    );
    try {
      const { state } = await this.aggregates.handle(
        stream,
        userDecider,
        { type: 'AcceptInvitation', orgId, tokenHash, passwordHash, now },
        // The invited person is the actor: no one is signed in yet.
        context,
        { retries: 0 },
      );
      return toUserView(state!);
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not-found') throw unauthorized(REFUSED);
      throw error;
    }
  }
}
