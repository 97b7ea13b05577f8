import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { createHash } from 'node:crypto';
import { invalidField, rateLimited, unauthorized } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { accessAuditStream, DEPLOYMENT_AUDIT } from '../../domain/identity.streams.js';
import { MAX_PASSWORD_BYTES, verifyAgainstDummy, verifyPassword } from '../../domain/password-hasher.js';
import type { User } from '../../domain/user.decider.js';
import type { ConsoleLoginFailed } from '../../domain/user.events.js';
import { emailDigest } from '../../domain/user-email.js';
import { LoginThrottle } from '../../login-throttle.js';
import { UserDirectory } from '../../user-directory.js';
import { OpenConsoleSessionCommand, type OpenedConsoleSession } from '../open-console-session/open-console-session.command.js';
import { PasswordLoginCommand } from './password-login.command.js';

/** The one answer to a wrong email, a wrong password, a disabled or a not yet active user. */
const wrongCredentials = () => unauthorized('The email or password is wrong');

@CommandHandler(PasswordLoginCommand)
export class PasswordLoginHandler implements ICommandHandler<PasswordLoginCommand> {
  constructor(
    private readonly users: UserDirectory,
    private readonly throttle: LoginThrottle,
    private readonly aggregates: AggregateStore,
    private readonly commands: CommandBus,
  ) {}

  async execute(command: PasswordLoginCommand): Promise<OpenedConsoleSession> {
    if (typeof command.email !== 'string' || command.email.trim() === '') throw invalidField('/email', 'An email address is required');
    if (typeof command.password !== 'string' || command.password === '') throw invalidField('/password', 'A password is required');
    if (Buffer.byteLength(command.password, 'utf8') > MAX_PASSWORD_BYTES) {
      throw invalidField('/password', `A password has at most ${MAX_PASSWORD_BYTES} bytes`);
    }
    const digest = emailDigest(command.email);
    const keys = [`account:${digest}`, `address:${createHash('sha256').update(command.clientAddress).digest('hex')}`];
    const wait = await this.throttle.retryAfter(keys);
    if (wait > 0) throw rateLimited(wait);

    const user = await this.users.findByEmail(command.email);
    // The same work whether or not the account exists, has a password or may sign in.
    const matches = user?.passwordHash ? await verifyPassword(command.password, user.passwordHash) : await verifyAgainstDummy(command.password);
    if (!user || !matches || user.state !== 'active') {
      await this.throttle.recordFailure(keys);
      await this.recordFailure(digest, user, matches, command);
      throw wrongCredentials();
    }
    return this.commands.execute(
      new OpenConsoleSessionCommand(user.orgId, user.userId, 'password', {
        orgId: user.orgId,
        correlationId: command.correlationId,
        actor: `user:${user.userId}`,
      }),
    );
  }

  /** An audit record, never the password nor the address in plain text. */
  private async recordFailure(digest: string, user: User | null, matches: boolean, command: PasswordLoginCommand): Promise<void> {
    const reason: ConsoleLoginFailed['data']['reason'] =
      user === null ? 'unknown-user' : user.state === 'disabled' ? 'disabled' : user.passwordHash === null ? 'no-password' : !matches ? 'wrong-password' : 'no-password';
    const orgId = user?.orgId ?? DEPLOYMENT_AUDIT;
    const event: ConsoleLoginFailed = {
      type: 'ConsoleLoginFailed',
      data: { emailDigest: digest, userId: user?.userId ?? null, method: 'password', reason, clientAddress: command.clientAddress },
    };
    // An audit trail appends; there is nothing to decide, so no stream needs reading first.
    await this.aggregates.record(accessAuditStream(orgId), [event], { orgId, correlationId: command.correlationId, actor: 'anonymous' }, 'any');
  }
}
