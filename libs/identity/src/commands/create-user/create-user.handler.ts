import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { invalidField, notFound } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { organizationStream, registryContext, userEmailStream, userStream } from '../../domain/identity.streams.js';
import { checkedPassword } from '../../domain/password-policy.js';
import { checkedRoles, organizationUserOf, userDecider, userEmailDecider } from '../../domain/user.decider.js';
import { checkedEmail, emailDigest } from '../../domain/user-email.js';
import { PasswordHashing } from '../../password-hashing.js';
import { CreateUserCommand } from './create-user.command.js';

@CommandHandler(CreateUserCommand)
export class CreateUserHandler implements ICommandHandler<CreateUserCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly passwords: PasswordHashing,
  ) {}

  async execute(command: CreateUserCommand): Promise<{ userId: string }> {
    const { orgId, context, options } = command;
    // Everything that can refuse the request is checked before the address is claimed.
    const email = checkedEmail(command.email);
    const roles = checkedRoles(command.roles);
    const state = options.state ?? 'active';
    if (state === 'invited' && options.password !== undefined) throw invalidField('/password', 'An invited user sets its own password');
    const passwordHash = options.password === undefined ? null : await this.passwords.hash(await checkedPassword(options.password, { email }));
    if (!(await this.aggregates.exists(organizationStream(orgId)))) throw notFound(`No organization ${orgId}`);

    const digest = emailDigest(email);
    const userId = (await this.orphanedClaim(orgId, digest)) ?? this.aggregates.newId('usr_');
    // The registry is the write-side uniqueness check: of two concurrent claims one append fails,
    // and its retry finds the address taken (400 on /email). An invited user reserves the address,
    // or, where another organization holds it, is recorded as its organization's invitee: the
    // conflict is settled when the invitation is accepted (userEmailDecider).
    await this.aggregates.handle(
      userEmailStream(digest),
      userEmailDecider,
      { type: state === 'invited' ? 'InviteToUserEmail' : 'ClaimUserEmail', emailDigest: digest, userId, orgId },
      registryContext(context),
      { retries: 1 },
    );
    await this.aggregates.handle(
      userStream(orgId, userId),
      userDecider,
      { type: 'CreateUser', userId, orgId, email, emailDigest: digest, roles, state, passwordHash },
      context,
      { retries: 0 },
    );
    return { userId };
  }

  /**
   * The user id this organization's entry for the address (claim, reservation or invitee) names
   * but that has no user (a process that stopped between the two appends): the creation resumes
   * with that id instead of finding the address taken for good.
   */
  private async orphanedClaim(orgId: string, digest: string): Promise<string | undefined> {
    const userId = organizationUserOf(await this.aggregates.state(userEmailStream(digest), userEmailDecider), orgId);
    if (userId === undefined) return undefined;
    return (await this.aggregates.exists(userStream(orgId, userId))) ? undefined : userId;
  }
}
