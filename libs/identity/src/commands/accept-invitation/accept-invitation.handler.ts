import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type Clock, DomainError, unauthorized } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { userStream } from '../../domain/identity.streams.js';
import { hashInvitationToken, invitationTarget } from '../../domain/invitation-token.js';
import { hashPassword } from '../../domain/password-hasher.js';
import { checkedPassword } from '../../domain/password-policy.js';
import { userDecider } from '../../domain/user.decider.js';
import { toUserView, type UserView } from '../../queries/user-view.js';
import { AcceptInvitationCommand } from './accept-invitation.command.js';

const REFUSED = 'The invitation is unknown, already used or expired';

@CommandHandler(AcceptInvitationCommand)
export class AcceptInvitationHandler implements ICommandHandler<AcceptInvitationCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: AcceptInvitationCommand): Promise<UserView> {
    const target = invitationTarget(command.token);
    if (target === null) throw unauthorized(REFUSED);
    const { orgId, userId } = target;
    const stream = userStream(orgId, userId);
    // The invited address is among the words the new password may not be built on.
    const invited = await this.aggregates.state(stream, userDecider);
    const password = await checkedPassword(command.password, { email: invited?.orgId === orgId ? invited.email : null });
    try {
      const { state } = await this.aggregates.handle(
        stream,
        userDecider,
        { type: 'AcceptInvitation', orgId, tokenHash: hashInvitationToken(command.token), passwordHash: await hashPassword(password), now: this.clock.now().toISOString() },
        // The invited person is the actor: no one is signed in yet.
        { orgId, correlationId: command.correlationId, actor: `user:${userId}` },
        { retries: 0 },
      );
      return toUserView(state!);
    } catch (error) {
      // An unknown user answers like a wrong token: a token reveals nothing it does not open.
      if (error instanceof DomainError && error.kind === 'not-found') throw unauthorized(REFUSED);
      throw error;
    }
  }
}
