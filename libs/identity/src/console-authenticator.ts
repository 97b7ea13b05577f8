import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Clock } from '#warden/kernel';
import { CLOCK, type ConsoleAuthenticator, type ConsolePrincipal, SESSION_TTL_MS } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { hashSessionToken } from './domain/session-token.js';
import { USERS_PROJECTION } from './projections/users.projection.js';
import { CONSOLE_SESSIONS, type ConsoleSessionDoc, USERS, type UserDoc } from './projections/users.read-model.js';
import { permissionsOf } from './domain/access.js';
import { ReadOnlySessions } from './read-only-sessions.js';
import { SecondFactorEnforcement } from './second-factor-enforcement.js';
import { SessionActivity } from './session-activity.js';
import { UserDirectory } from './user-directory.js';

type SessionPrincipal = ConsolePrincipal & { readonly csrfTokenHash: string };

/**
 * A session cookie's user: the sessions read model (caught up on a miss, so a session opened by
 * another process works at once) says whose it is; the user's aggregate, read from the log on
 * every request, says whether the session is still open and unexpired, the user active, and
 * with which roles; SessionActivity, whether it was used recently enough (the idle timeout). So
 * logout, disabling and role changes hold on the very next request, in every process, without a
 * cache to invalidate.
 */
@Injectable()
export class SessionConsoleAuthenticator implements ConsoleAuthenticator {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly users: UserDirectory,
    private readonly secondFactors: SecondFactorEnforcement,
    private readonly readOnly: ReadOnlySessions,
    private readonly activity: SessionActivity,
  ) {}

  async authenticate(sessionToken: string): Promise<ConsolePrincipal | null> {
    if (sessionToken.length > 200) return null;
    const tokenHash = hashSessionToken(sessionToken);
    // A read-only server's sessions are in memory only (ReadOnlySessions): the log knows none of them.
    if (this.readOnly.active) return this.principal(tokenHash, this.readOnly.find(tokenHash));
    let doc = await this.readStore.get<ConsoleSessionDoc>(CONSOLE_SESSIONS, tokenHash);
    if (!doc) {
      await this.projections.catchUp(USERS_PROJECTION);
      doc = await this.readStore.get<ConsoleSessionDoc>(CONSOLE_SESSIONS, tokenHash);
    }
    return this.principal(tokenHash, doc);
  }

  /** The principal of the session `ref` names, if the user's aggregate says it is still good. */
  private async principal(tokenHash: string, doc: Pick<ConsoleSessionDoc, 'orgId' | 'userId' | 'sessionId'> | undefined): Promise<ConsolePrincipal | null> {
    if (!doc) return null;
    // The session check reads the user's access (state, roles, sessions), never their whole state:
    // that holds their email, and is read again from the first event every minute.
    const user = await this.users.access(doc.orgId, doc.userId);
    const session = this.readOnly.active ? this.readOnly.find(tokenHash) : user?.sessions[doc.sessionId];
    if (!user || !session || user.state !== 'active' || session.tokenHash !== tokenHash) return null;
    const now = this.clock.now();
    if (session.expiresAt <= now.toISOString()) return null;
    // Sessions are opened for SESSION_TTL_MS: their expiry says when. Unused past the idle timeout: refused.
    const openedAt = Date.parse(session.expiresAt) - SESSION_TTL_MS;
    if (!(await this.activity.use(doc.sessionId, openedAt, now.getTime()))) return null;
    const principal: SessionPrincipal = {
      userId: user.userId,
      orgId: user.orgId,
      email: await this.emailOf(user.userId),
      roles: [...user.roles],
      permissions: permissionsOf(user.roles),
      sessionId: doc.sessionId,
      // When the user last proved who they are: the IdP's AuthnInstant where the sign-in recorded
      // an earlier one, else the opening.
      signedInAt: session.authenticatedAt ?? new Date(openedAt).toISOString(),
      csrfTokenHash: session.csrfTokenHash,
    };
    return this.secondFactors.apply(principal, session.method);
  }

  /**
   * The user's email as the users read model has it (null once erased: ''). It was caught up when
   * the session was first looked for, and a user's email never changes.
   */
  private async emailOf(userId: string): Promise<string> {
    return (await this.readStore.get<UserDoc>(USERS, userId))?.email ?? '';
  }

  verifyCsrf(principal: ConsolePrincipal, csrfToken: string): boolean {
    const expected = (principal as Partial<SessionPrincipal>).csrfTokenHash;
    if (expected === undefined) return false;
    return timingSafeEqual(Buffer.from(hashSessionToken(csrfToken), 'hex'), Buffer.from(expected, 'hex'));
  }
}
