import { afterEach, describe, expect, it } from 'vitest';
import { FixedClock, randomIds } from '#warden/kernel';
import { SqliteEventStore } from '#warden/eventstore';
import { AggregateStore } from '#warden/storage';
import { sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import { organizationDecider } from '../../domain/organization.decider.js';
import { organizationStream, userEmailStream, userStream } from '../../domain/identity.streams.js';
import { userDecider, userEmailDecider } from '../../domain/user.decider.js';
import { emailDigest } from '../../domain/user-email.js';
import { CreateUserCommand } from './create-user.command.js';
import { CreateUserHandler } from './create-user.handler.js';
import { PasswordHashing } from '../../password-hashing.js';

const context = (orgId: string) => ({ orgId, correlationId: 'c', actor: 'cli' });

describe('creating a user, on the real embedded store', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  const setUp = async () => {
    stores = sqliteStores();
    const aggregates = new AggregateStore(new SqliteEventStore(stores.open()), new FixedClock(new Date('2026-11-23T12:00:00Z')), randomIds);
    for (const orgId of ['acme', 'globex']) {
      await aggregates.handle(organizationStream(orgId), organizationDecider, { type: 'CreateOrganization', orgId, name: orgId }, context(orgId));
    }
    return { aggregates, handler: new CreateUserHandler(aggregates, new PasswordHashing({ passwordHashCost: 10 })) };
  };

  it('resumes a creation whose process stopped after claiming the address, with the claimed id', async () => {
    const { aggregates, handler } = await setUp();
    const digest = emailDigest('ann@acme.example');
    // What a process that stopped between the two appends leaves: the claim, no user.
    await aggregates.handle(
      userEmailStream(digest),
      userEmailDecider,
      { type: 'ClaimUserEmail', emailDigest: digest, userId: 'usr_orphan', orgId: 'acme' },
      context('acme'),
    );

    const { userId } = await handler.execute(new CreateUserCommand('acme', 'Ann@acme.example', ['MODERATOR'], context('acme')));
    expect(userId).toBe('usr_orphan');
    const { state } = await aggregates.load(userStream('acme', 'usr_orphan'), userDecider);
    expect(state).toMatchObject({ email: 'ann@acme.example', roles: ['MODERATOR'] });
    // Once the user exists, the address is taken as before.
    await expect(handler.execute(new CreateUserCommand('acme', 'ann@acme.example', ['MODERATOR'], context('acme')))).rejects.toThrow(/already exists/);
  });

  it("never resumes another organization's claim", async () => {
    const { aggregates, handler } = await setUp();
    const digest = emailDigest('bob@globex.example');
    await aggregates.handle(
      userEmailStream(digest),
      userEmailDecider,
      { type: 'ClaimUserEmail', emailDigest: digest, userId: 'usr_globex', orgId: 'globex' },
      context('globex'),
    );
    await expect(handler.execute(new CreateUserCommand('acme', 'bob@globex.example', ['MODERATOR'], context('acme')))).rejects.toThrow(/already exists/);
  });

  it("creates an invited user of an address another organization holds as its organization's invitee, and resumes one left without its user", async () => {
    const { aggregates, handler } = await setUp();
    const digest = emailDigest('bob@globex.example');
    await aggregates.handle(
      userEmailStream(digest),
      userEmailDecider,
      { type: 'ClaimUserEmail', emailDigest: digest, userId: 'usr_globex', orgId: 'globex' },
      context('globex'),
    );
    // What a process that stopped between the two appends leaves: the invitee, no user.
    await aggregates.handle(
      userEmailStream(digest),
      userEmailDecider,
      { type: 'InviteToUserEmail', emailDigest: digest, userId: 'usr_acme', orgId: 'acme' },
      context('acme'),
    );

    const { userId } = await handler.execute(new CreateUserCommand('acme', 'bob@globex.example', ['MODERATOR'], context('acme'), { state: 'invited' }));
    expect(userId).toBe('usr_acme');
    expect(await aggregates.state(userStream('acme', userId), userDecider)).toMatchObject({ state: 'invited', email: 'bob@globex.example' });
    expect(await aggregates.state(userEmailStream(digest), userEmailDecider)).toEqual({
      holder: { userId: 'usr_globex', orgId: 'globex', reserved: false },
      invitees: { acme: 'usr_acme' },
    });
  });
});
