import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Clock } from '#warden/kernel';
import { CLOCK, SESSION_TTL_MS } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { userStream } from '../../domain/identity.streams.js';
import { csrfTokenFor, hashSessionToken, newSessionToken } from '../../domain/session-token.js';
import { type OpenSession, userDecider } from '../../domain/user.decider.js';
import { toUserView } from '../../queries/user-view.js';
import { ReadOnlySessions } from '../../read-only-sessions.js';
import { UserDirectory } from '../../user-directory.js';
import { OpenConsoleSessionCommand, type OpenedConsoleSession } from './open-console-session.command.js';

@CommandHandler(OpenConsoleSessionCommand)
export class OpenConsoleSessionHandler implements ICommandHandler<OpenConsoleSessionCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readOnly: ReadOnlySessions,
    private readonly users: UserDirectory,
  ) {}

  async execute(command: OpenConsoleSessionCommand): Promise<OpenedConsoleSession> {
    const stream = userStream(command.orgId, command.userId);
    const sessionId = this.aggregates.newId('ses_');
    const token = newSessionToken();
    const csrfToken = csrfTokenFor(token);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS).toISOString();
    const open = {
      type: 'OpenConsoleSession',
      orgId: command.orgId,
      sessionId,
      tokenHash: hashSessionToken(token),
      csrfTokenHash: hashSessionToken(csrfToken),
      method: command.method,
      expiresAt,
      openedAt: now.toISOString(),
      // Only an earlier instant: one in the future (the IdP's clock ahead) counts as now.
      ...(command.authenticatedAt !== undefined && command.authenticatedAt < now.toISOString() ? { authenticatedAt: command.authenticatedAt } : {}),
    } as const;
    if (this.readOnly.active) {
      // A read-only server's log takes nothing: the decider still says whether the user may sign in.
      const user = await this.users.get(command.orgId, command.userId);
      userDecider.decide(open, user);
      const session: OpenSession = {
        tokenHash: open.tokenHash,
        csrfTokenHash: open.csrfTokenHash,
        method: open.method,
        expiresAt,
        ...('authenticatedAt' in open ? { authenticatedAt: open.authenticatedAt } : {}),
      };
      this.readOnly.open({ ...session, orgId: command.orgId, userId: command.userId, sessionId });
      return { sessionId, token, csrfToken, expiresAt, user: toUserView(user!) };
    }
    const { state } = await this.aggregates.handle(stream, userDecider, open, command.context);
    return { sessionId, token, csrfToken, expiresAt, user: toUserView(state!) };
  }
}
