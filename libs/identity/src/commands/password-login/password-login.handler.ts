import { Inject, Optional } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type CommandContext, forbidden, invalidField, rateLimited, secondFactorRequired, unauthorized } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { accessAuditStream, DEPLOYMENT_AUDIT, userStream } from '../../domain/identity.streams.js';
import { PasswordChecksBusyError, PasswordHashing } from '../../password-hashing.js';
import { MAX_PASSWORD_BYTES } from '../../domain/password-policy.js';
import { type User, userDecider } from '../../domain/user.decider.js';
import { accessAuditDecider } from '../../domain/access-audit.decider.js';
import type { ConsoleLoginFailed } from '../../domain/user.events.js';
import { emailDigest } from '../../domain/user-email.js';
import { LoginThrottle, loginThrottleKeys } from '../../login-throttle.js';
import { ReadOnlySessions } from '../../read-only-sessions.js';
import { UserDirectory } from '../../user-directory.js';
import { CheckSecondFactorCommand } from '../check-second-factor/check-second-factor.command.js';
import { OpenConsoleSessionCommand, type OpenedConsoleSession } from '../open-console-session/open-console-session.command.js';
import { PASSWORD_LOGIN_POLICY, type PasswordLoginPolicy } from '../../password-login.port.js';
import { PasswordLoginCommand } from './password-login.command.js';

type FailureReason = ConsoleLoginFailed['data']['reason'];

/** Failed sign-ins of one organization contend for its audit trail: each lost race reads forward and records again. */
const AUDIT_CONTENTION_RETRIES = 100;

/** Why the email and password did not sign in (the audit's reason; the caller gets one 401 for all). */
function credentialsFailure(user: User | null, matches: boolean): FailureReason {
  if (user === null) return 'unknown-user';
  if (user.state === 'disabled') return 'disabled';
  return user.passwordHash !== null && !matches ? 'wrong-password' : 'no-password';
}

/** The one answer to a wrong email, a wrong password, a disabled or a not yet active user. */
const wrongCredentials = () => unauthorized('The email or password is wrong');

@CommandHandler(PasswordLoginCommand)
export class PasswordLoginHandler implements ICommandHandler<PasswordLoginCommand> {
  constructor(
    private readonly users: UserDirectory,
    private readonly throttle: LoginThrottle,
    private readonly aggregates: AggregateStore,
    private readonly commands: CommandBus,
    private readonly readOnly: ReadOnlySessions,
    private readonly passwords: PasswordHashing,
    /** The SSO module's answer (password-login.port.ts); without it every organization may use passwords. */
    @Optional() @Inject(PASSWORD_LOGIN_POLICY) private readonly policy?: PasswordLoginPolicy,
  ) {}

  async execute(command: PasswordLoginCommand): Promise<OpenedConsoleSession> {
    if (typeof command.email !== 'string' || command.email.trim() === '') throw invalidField('/email', 'An email address is required');
    if (typeof command.password !== 'string' || command.password === '') throw invalidField('/password', 'A password is required');
    if (Buffer.byteLength(command.password, 'utf8') > MAX_PASSWORD_BYTES) {
      throw invalidField('/password', `A password has at most ${MAX_PASSWORD_BYTES} bytes`);
    }
    const digest = emailDigest(command.email);
    const keys = loginThrottleKeys(digest, command.clientAddress);
    // Counted before the password is checked (see LoginThrottle): taken back below once it is right.
    const attempt = await this.throttle.begin(keys);
    if (attempt.id === null) {
      throw rateLimited(attempt.retryAfter, 'Too many failed sign-ins for this account or from this network (10 in 15 minutes)');
    }
    const attemptId = attempt.id;

    const found = await this.users.findByEmail(command.email);
    // An account whose email was erased (GDPR: the organization's last ADMIN is kept, docs/gdpr.md)
    // no longer signs in by that address: its registry entry outlives the address it was made from.
    const user = found?.email === null ? null : found;
    // The same work whether or not the account exists, has a password or may sign in.
    const matches = await (
      user?.passwordHash ? this.passwords.verify(command.password, user.passwordHash) : this.passwords.verifyAgainstDummy(command.password)
    ).catch(async (error: unknown) => {
      if (!(error instanceof PasswordChecksBusyError)) throw error;
      // Not checked, so no guess: the attempt is taken back, as for a right password.
      await this.throttle.succeeded(keys, attemptId);
      throw rateLimited(1, 'Too many sign-ins are being checked at once: retry in a moment');
    });
    if (!user || !matches || user.state !== 'active') {
      await this.recordFailure(digest, user, credentialsFailure(user, matches), command);
      throw wrongCredentials();
    }
    await this.throttle.succeeded(keys, attemptId);
    // Asked only once the password is right, so that the answer tells nothing to someone guessing.
    if (this.policy && !(await this.policy.passwordLoginAllowed(user.orgId))) {
      await this.recordFailure(digest, user, 'password-login-disabled', command);
      throw forbidden(`Your organization signs in through single sign-on only: use /saml/login/${user.orgId}`);
    }
    const context = { orgId: user.orgId, correlationId: command.correlationId, actor: `user:${user.userId}` };
    const secondFactor = await this.commands.execute(
      new CheckSecondFactorCommand(user.orgId, user.userId, command.secondFactor.totp, command.secondFactor.recoveryCode, context),
    );
    if (secondFactor === 'missing') throw secondFactorRequired();
    if (secondFactor === 'wrong') {
      // A guessed code counts like a guessed password.
      await this.throttle.begin(keys);
      await this.recordFailure(digest, user, 'wrong-second-factor', command);
      throw wrongCredentials();
    }
    await this.rehashIfWeaker(user, command.password, context);
    return this.commands.execute(
      new OpenConsoleSessionCommand(user.orgId, user.userId, 'password', {
        orgId: user.orgId,
        correlationId: command.correlationId,
        actor: `user:${user.userId}`,
      }),
    );
  }

  /**
   * A hash made with weaker parameters than today's is replaced by one of the same password made
   * with today's, now that the password is at hand: raising the parameters reaches every user
   * who signs in, with nobody resetting anything.
   */
  private async rehashIfWeaker(user: User, password: string, context: CommandContext): Promise<void> {
    // A read-only server appends nothing: the weaker hash waits for a sign-in on the live server.
    if (this.readOnly.active || user.passwordHash === null || !this.passwords.needsRehash(user.passwordHash)) return;
    const passwordHash = await this.passwords.hash(password);
    await this.aggregates.handle(
      userStream(user.orgId, user.userId),
      userDecider,
      { type: 'RehashPassword', orgId: user.orgId, previousHash: user.passwordHash, passwordHash },
      context,
    );
  }

  /** An audit record: never the password; the email only as its digest; the client address as given (a security log needs it). */
  private async recordFailure(digest: string, user: User | null, reason: FailureReason, command: PasswordLoginCommand): Promise<void> {
    // A read-only server (a replayed log) records no failure in its log; the throttle, kept in the
    // read store, still counts it.
    if (this.readOnly.active) return;
    const orgId = user?.orgId ?? DEPLOYMENT_AUDIT;
    const failure = { emailDigest: digest, userId: user?.userId ?? null, method: 'password' as const, reason, clientAddress: command.clientAddress };
    // One trail per organization takes every failed sign-in: under a guessing attack on several
    // processes they contend for it, and a lost race must not turn the 401 into a 409.
    await this.aggregates.handle(
      accessAuditStream(orgId),
      accessAuditDecider,
      { type: 'RecordLoginFailure', failure },
      { orgId, correlationId: command.correlationId, actor: 'anonymous' },
      { retries: AUDIT_CONTENTION_RETRIES },
    );
  }
}
