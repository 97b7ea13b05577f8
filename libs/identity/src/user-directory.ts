import { Injectable } from '@nestjs/common';
import { AggregateStore } from '#warden/storage';
import { userEmailStream, userStream } from './domain/identity.streams.js';
import { type User, userDecider, userEmailDecider } from './domain/user.decider.js';
import { emailDigest } from './domain/user-email.js';

/**
 * Users read from the log, not from a read model: sign-in and session checks must see a user
 * disabled or changed a moment ago, by any process. The email registry stream gives the user
 * an address belongs to.
 */
@Injectable()
export class UserDirectory {
  constructor(private readonly aggregates: AggregateStore) {}

  async findByEmail(email: string): Promise<User | null> {
    const digest = emailDigest(email);
    const { events } = await this.aggregates.load(userEmailStream(digest), userEmailDecider);
    const claim = events[0];
    return claim ? this.get(claim.data.orgId, claim.data.userId) : null;
  }

  async get(orgId: string, userId: string): Promise<User | null> {
    const state = await this.aggregates.state(userStream(orgId, userId), userDecider);
    return state !== null && state.orgId === orgId ? state : null;
  }
}
