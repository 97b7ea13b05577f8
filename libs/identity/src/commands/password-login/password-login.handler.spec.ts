import { afterEach, describe, expect, it } from 'vitest';
import type { CommandBus } from '@nestjs/cqrs';
import { type DomainError, FixedClock, randomIds } from '#warden/kernel';
import { PersonalDataPolicy, SqliteEventStore } from '#warden/eventstore';
import { IDENTITY_PERSONAL_DATA } from '../../contracts.js';
import { AggregateStore } from '#warden/storage';
import { sealingEventStore, sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import { userEmailStream, userStream } from '../../domain/identity.streams.js';
import { HASHES_AT_ONCE, PasswordHashing, SIGN_INS_WAITING } from '../../password-hashing.js';
import { CURRENT_PARAMS, hashPassword, needsRehash } from '../../domain/password-hasher.js';
import { userDecider, userEmailDecider } from '../../domain/user.decider.js';
import { emailDigest } from '../../domain/user-email.js';
import { LoginThrottle } from '../../login-throttle.js';
import { ReadOnlySessions } from '../../read-only-sessions.js';
import { UserDirectory } from '../../user-directory.js';
import { PasswordLoginCommand } from './password-login.command.js';
import { PasswordLoginHandler } from './password-login.handler.js';

const PASSWORD = 'a password from long ago';
const context = { orgId: 'acme', correlationId: 'c', actor: 'cli' };

/** A user holding `email` (its registry entry, then the user), active, with `passwordHash`. */
async function activeUser(aggregates: AggregateStore, userId: string, email: string, role: 'ADMIN' | 'MODERATOR', passwordHash: string) {
  await aggregates.handle(
    userEmailStream(emailDigest(email)),
    userEmailDecider,
    { type: 'ClaimUserEmail', emailDigest: emailDigest(email), userId, orgId: 'acme' },
    context,
  );
  await aggregates.handle(
    userStream('acme', userId),
    userDecider,
    { type: 'CreateUser', userId, orgId: 'acme', email, emailDigest: emailDigest(email), roles: [role], state: 'active', passwordHash },
    context,
  );
}

/**
 * The handler on the real stores; the narrowest seams are the command bus and the SSO module's
 * port, answering as the second factor, SSO and session handlers would. `opened`: the sessions asked for.
 */
function loginHandler(aggregates: AggregateStore, stores: ReturnType<typeof sqliteStores>, clock: FixedClock) {
  const opened: unknown[] = [];
  const commands = {
    execute: async (c: { constructor: { name: string } }) =>
      c.constructor.name === 'CheckSecondFactorCommand' ? 'not-enrolled' : (opened.push(c), { sessionId: 's' }),
  } as unknown as CommandBus;
  const handler = new PasswordLoginHandler(
    new UserDirectory(aggregates),
    new LoginThrottle(stores.readStore, clock),
    aggregates,
    commands,
    new ReadOnlySessions({ readOnly: false }),
    new PasswordHashing({ passwordHashCost: CURRENT_PARAMS.ln }),
    { passwordLoginAllowed: async () => true },
  );
  return { handler, opened };
}

describe('password sign-in, on the real embedded store', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  it("replaces a hash made with weaker parameters by one made with today's, and the password still signs in", async () => {
    stores = sqliteStores();
    const clock = new FixedClock(new Date('2026-11-23T12:00:00Z'));
    const aggregates = new AggregateStore(new SqliteEventStore(stores.open()), clock, randomIds);
    const weak = await hashPassword(PASSWORD, { ...CURRENT_PARAMS, ln: 10 });
    const email = 'old@acme.example';
    await activeUser(aggregates, 'usr_1', email, 'MODERATOR', weak);
    const { handler, opened } = loginHandler(aggregates, stores, clock);

    await handler.execute(new PasswordLoginCommand(email, PASSWORD, '203.0.113.7', 'c1'));
    expect(opened).toHaveLength(1);
    const { state, events } = await aggregates.load(userStream('acme', 'usr_1'), userDecider);
    expect(events.map((e) => e.type)).toContain('UserPasswordRehashed');
    expect(needsRehash(state!.passwordHash!)).toBe(false);

    await handler.execute(new PasswordLoginCommand(email, PASSWORD, '203.0.113.7', 'c2'));
    expect(opened).toHaveLength(2);
    const again = await aggregates.load(userStream('acme', 'usr_1'), userDecider);
    expect(again.events.filter((e) => e.type === 'UserPasswordRehashed')).toHaveLength(1);
  });

  it("refuses the address of an account whose email was erased (GDPR, the organization's last ADMIN kept), with the password right", async () => {
    stores = sqliteStores();
    const clock = new FixedClock(new Date('2026-11-23T12:00:00Z'));
    const { store, keys } = sealingEventStore(stores, new PersonalDataPolicy().registerAll(IDENTITY_PERSONAL_DATA));
    const aggregates = new AggregateStore(store, clock, randomIds);
    const email = 'last-admin@acme.example';
    await activeUser(aggregates, 'usr_9', email, 'ADMIN', await hashPassword(PASSWORD, CURRENT_PARAMS));
    const { handler, opened } = loginHandler(aggregates, stores, clock);
    await handler.execute(new PasswordLoginCommand(email, PASSWORD, '203.0.113.8', 'c1'));
    expect(opened).toHaveLength(1);
    // The erasure forgets the console user's key (user-eraser.ts); the account stays, active, its email unreadable.
    expect(await keys.forget('acme', 'usr_9')).toBe(1);
    aggregates.forgetCached();
    await expect(handler.execute(new PasswordLoginCommand(email, PASSWORD, '203.0.113.8', 'c2'))).rejects.toMatchObject({ status: 401 });
    expect(opened).toHaveLength(1);
  });

  it('refuses at once, with 429, the sign-ins past those waiting for a password check, and counts them against no throttle', async () => {
    stores = sqliteStores();
    const clock = new FixedClock(new Date('2026-11-23T12:00:00Z'));
    const aggregates = new AggregateStore(new SqliteEventStore(stores.open()), clock, randomIds);
    const email = 'busy@acme.example';
    // A cheap hash for the account: its ten wrong guesses below check the throttle, not the cost,
    // and at today's cost they took half of the test's time (a wrong guess replaces no hash).
    await activeUser(aggregates, 'usr_5', email, 'MODERATOR', await hashPassword(PASSWORD, { ...CURRENT_PARAMS, ln: 10 }));
    const { handler, opened } = loginHandler(aggregates, stores, clock);
    // A flood of wrong passwords for unknown accounts, each from an address of its own (each within its throttle).
    const flood = Array.from({ length: HASHES_AT_ONCE + SIGN_INS_WAITING + 4 }, (_, i) =>
      handler.execute(new PasswordLoginCommand(`nobody-${i}@acme.example`, 'guess', `198.51.100.${i + 1}`, `f${i}`)),
    );
    const settled = await Promise.allSettled(flood);
    const statuses = settled.map((r) => (r.status === 'rejected' ? (r.reason as { status: number }).status : 200));
    expect(statuses.filter((s) => s === 401)).toHaveLength(HASHES_AT_ONCE + SIGN_INS_WAITING);
    const busy = settled.flatMap((r) => (r.status === 'rejected' && (r.reason as { status: number }).status === 429 ? [r.reason as DomainError] : []));
    expect(busy).toHaveLength(4);
    expect(busy[0]!.message).toMatch(/Too many sign-ins are being checked at once/);
    expect(busy[0]!.headers['Retry-After']).toBe('1');
    // A refused address was not counted: ten wrong guesses from it are still answered 401 (the 11th is throttled).
    const refusedAddress = `198.51.100.${statuses.indexOf(429) + 1}`;
    for (let i = 0; i < 10; i++) {
      await expect(handler.execute(new PasswordLoginCommand(email, 'wrong', refusedAddress, `w${i}`))).rejects.toMatchObject({ status: 401 });
    }
    await expect(handler.execute(new PasswordLoginCommand(email, 'wrong', refusedAddress, 'w10'))).rejects.toMatchObject({ status: 429 });
    expect(opened).toHaveLength(0);
    // Eighteen hashes at today's cost, two at a time: 3 s alone, 24 s beside the rest of the
    // unit run on two cores, where the default 30 s once ran out.
  }, 90_000);
});
