import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  ChangeUserRolesCommand,
  CreateUserCommand,
  FindUserByEmailQuery,
  OpenConsoleSessionCommand,
  type OpenedConsoleSession,
  type UserView,
} from '#warden/identity';
import { type CommandContext, DomainError } from '#warden/kernel';
import { accountEmail, type Role } from '#warden/identity/contracts';
import { rolesFromGroups, type SamlIdentity, sameRoles } from './domain/saml-identity.js';
import { ssoRefused } from './domain/sso-refusal.js';
import type { SamlOrganization } from './saml/saml-service-provider.js';

type Account = Pick<UserView, 'id' | 'orgId' | 'roles' | 'state'>;

/**
 * The last step of an SSO sign-in, after the response was verified and its assertion recorded.
 * Refuses with an SsoRefusal a user it must not let in. Signs a verified SAML identity in through
 * the identity module: the user found by email (read
 * from the log, so a user disabled a moment ago is seen), or created just in time; its roles set
 * from the IdP's groups through ChangeUserRolesCommand (so the change is audited like any other);
 * then the same console session a password sign-in opens.
 */
@Injectable()
export class SsoUserSignIn {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  async signIn(org: SamlOrganization, identity: SamlIdentity, context: CommandContext): Promise<OpenedConsoleSession> {
    const mapped = rolesFromGroups(org.settings, identity.groups);
    if (mapped !== null && mapped.length === 0) throw ssoRefused('no-role');
    const user = (await this.find(identity.email)) ?? (await this.provision(org, identity.email, mapped, context));
    if (user.orgId !== org.orgId) throw ssoRefused('user-of-another-organization');
    if (user.state === 'disabled') throw ssoRefused('user-disabled');
    if (user.state !== 'active') throw ssoRefused('user-not-active');
    if (mapped !== null && !sameRoles(mapped, user.roles)) {
      await this.commands.execute(new ChangeUserRolesCommand(org.orgId, user.id, mapped, context));
    }
    // The sign-in is the user's own act, as a password sign-in is: the audit names them, not the IdP.
    // The session counts as signed in when the IdP last authenticated the user, not now: a
    // recent-sign-in check must not take an IdP session reused past ForceAuthn for a fresh one.
    return this.commands.execute(
      new OpenConsoleSessionCommand(org.orgId, user.id, 'saml', { ...context, actor: `user:${user.id}` }, identity.authenticatedAt ?? undefined),
    );
  }

  private find(email: string): Promise<Account | null> {
    return this.queries.execute(new FindUserByEmailQuery(email));
  }

  /** Just-in-time: the groups' roles (rolesFromGroups), or `defaultRoles` without roles from the IdP. */
  private async provision(org: SamlOrganization, email: string, mapped: Role[] | null, context: CommandContext): Promise<Account> {
    if (!org.settings.jit.enabled) throw ssoRefused('unknown-user');
    const roles = mapped ?? org.settings.jit.defaultRoles;
    if (roles.length === 0) throw ssoRefused('no-role');
    // An address no account may have (identity's rule) is a refusal, recorded and counted as the
    // others: CreateUserCommand's 400 on /email was neither (docs/sso.md, "What is refused, and why").
    if (accountEmail(email) === null) throw ssoRefused('no-email');
    try {
      const { userId } = await this.commands.execute(new CreateUserCommand(org.orgId, email, roles, context, { state: 'active' }));
      return { id: userId, orgId: org.orgId, roles, state: 'active' };
    } catch (error) {
      // Two first sign-ins at once: the email registry lets one create the user; the other finds it.
      const created = error instanceof DomainError ? await this.find(email) : null;
      if (created === null) throw error;
      return created;
    }
  }
}
