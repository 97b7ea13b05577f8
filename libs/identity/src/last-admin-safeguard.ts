import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { type CommandContext, conflict } from '#warden/kernel';
import { consoleActor } from '#warden/platform';
import { ListUsersQuery } from './queries/list-users/list-users.query.js';
import { UserDirectory } from './user-directory.js';

/**
 * An admin must not lock the organization out of its own console: the last active ADMIN cannot
 * remove ADMIN from themselves or disable themselves (409). Only the user's own change can take
 * the last admin away (anyone else changing them is an active admin too); the CLI and `apply`
 * are the operator's and are not held back. Candidates come from the read model and are
 * confirmed from the log; two last admins demoting themselves at the same instant are not
 * serialized (no organization-wide stream of admins exists to append to with an expected revision).
 */
@Injectable()
export class LastAdminSafeguard {
  constructor(
    private readonly users: UserDirectory,
    private readonly queries: QueryBus,
  ) {}

  async check(orgId: string, userId: string, context: CommandContext, after: readonly string[] | 'disabled'): Promise<void> {
    if (context.actor !== consoleActor({ userId })) return;
    if (after !== 'disabled' && after.includes('ADMIN')) return;
    if (await this.isLastActiveAdmin(orgId, userId)) throw conflict('You are the last active ADMIN of the organization: make another user ADMIN first');
  }

  /** Whether the user is an active ADMIN and no other user is. */
  async isLastActiveAdmin(orgId: string, userId: string): Promise<boolean> {
    const self = await this.users.get(orgId, userId);
    if (self === null || self.state !== 'active' || !self.roles.includes('ADMIN')) return false;
    const candidates = (await this.queries.execute(new ListUsersQuery(orgId))).filter(
      (u) => u.id !== userId && u.state === 'active' && u.roles.includes('ADMIN'),
    );
    for (const candidate of candidates) {
      const current = await this.users.get(orgId, candidate.id);
      if (current?.state === 'active' && current.roles.includes('ADMIN')) return false;
    }
    return true;
  }
}
