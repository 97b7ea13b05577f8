import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Clock } from '#warden/kernel';
import { CLOCK, SESSION_TTL_MS } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { userStream } from '../../domain/identity.streams.js';
import { csrfTokenFor, hashSessionToken, newSessionToken } from '../../domain/session-token.js';
import { userDecider } from '../../domain/user.decider.js';
import { toUserView } from '../../queries/user-view.js';
import { OpenConsoleSessionCommand, type OpenedConsoleSession } from './open-console-session.command.js';

@CommandHandler(OpenConsoleSessionCommand)
export class OpenConsoleSessionHandler implements ICommandHandler<OpenConsoleSessionCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: OpenConsoleSessionCommand): Promise<OpenedConsoleSession> {
    const stream = userStream(command.orgId, command.userId);
    const sessionId = this.aggregates.newId('ses_');
    const token = newSessionToken();
    const csrfToken = csrfTokenFor(token);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS).toISOString();
    const { state } = await this.aggregates.handle(
      stream,
      userDecider,
      {
        type: 'OpenConsoleSession',
        orgId: command.orgId,
        sessionId,
        tokenHash: hashSessionToken(token),
        csrfTokenHash: hashSessionToken(csrfToken),
        method: command.method,
        expiresAt,
        openedAt: now.toISOString(),
      },
      command.context,
    );
    return { sessionId, token, csrfToken, expiresAt, user: toUserView(state!) };
  }
}
