import { Injectable } from '@nestjs/common';
import { AggregateStore } from '#warden/storage';
import { userEmailStream, userStream } from './domain/identity.streams.js';
import { organizationUserOf, type User, userDecider, userEmailDecider } from './domain/user.decider.js';
import { emailDigest } from './domain/user-email.js';
import { type UserAccess, userAccessFolding } from './domain/user-access.js';

/**
 * Users read from the log, not from a read model: sign-in and session checks must see a user
 * disabled or changed a moment ago, by any process. The email registry stream gives the user
 * an address belongs to.
 */
@Injectable()
export class UserDirectory {
  constructor(private readonly aggregates: AggregateStore) {}

  /** The user who holds the address (its account, or its reservation while invited): the one that signs in with it. */
  async findByEmail(email: string): Promise<User | null> {
    const { holder } = await this.aggregates.state(userEmailStream(emailDigest(email)), userEmailDecider);
    return holder ? this.get(holder.orgId, holder.userId) : null;
  }

  /**
   * The organization's user with the address: the holder when it is the organization's, else the
   * organization's invitee of an address another organization holds (userEmailDecider).
   */
  async findInOrganization(orgId: string, email: string): Promise<User | null> {
    const userId = organizationUserOf(await this.aggregates.state(userEmailStream(emailDigest(email)), userEmailDecider), orgId);
    return userId ? this.get(orgId, userId) : null;
  }

  /** What a session check needs of the user (UserAccess): snapshotted and cached, unlike `get`. */
  async access(orgId: string, userId: string): Promise<UserAccess | null> {
    const state = await this.aggregates.state(userStream(orgId, userId), userAccessFolding);
    return state !== null && state.orgId === orgId ? state : null;
  }

  async get(orgId: string, userId: string): Promise<User | null> {
    const state = await this.aggregates.state(userStream(orgId, userId), userDecider);
    return state !== null && state.orgId === orgId ? state : null;
  }
}
