import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import { FixedClock, randomIds } from '#warden/kernel';
import { AggregateStore, Keyring } from '#warden/storage';
import { SqliteEventStore } from '#warden/eventstore';
import { SecondFactorProofs } from '../../second-factor-proofs.js';
import { ConfirmSecondFactorHandler } from '../confirm-second-factor/confirm-second-factor.handler.js';
import { StartSecondFactorEnrollmentCommand } from '../start-second-factor-enrollment/start-second-factor-enrollment.command.js';
import { StartSecondFactorEnrollmentHandler } from '../start-second-factor-enrollment/start-second-factor-enrollment.handler.js';
import { ConfirmSecondFactorCommand } from '../confirm-second-factor/confirm-second-factor.command.js';
import { CheckSecondFactorCommand } from './check-second-factor.command.js';
import { CheckSecondFactorHandler } from './check-second-factor.handler.js';
import { LoginThrottle } from '../../login-throttle.js';
import { DisableSecondFactorCommand } from '../disable-second-factor/disable-second-factor.command.js';
import { DisableSecondFactorHandler } from '../disable-second-factor/disable-second-factor.handler.js';
import { ReadOnlySessions } from '../../read-only-sessions.js';

const context = { orgId: 'acme', correlationId: 'c', actor: 'user:usr_1' };
const T0 = new Date('2026-11-23T12:00:10Z');

describe('the login check of a second factor, on the real embedded store', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  /** One "process": its own connection to the shared data file, the shared keyring and clock. */
  const aProcess = (keyring: Keyring, clock: FixedClock, readOnly = false) => {
    const log = new SqliteEventStore(stores.open());
    const aggregates = new AggregateStore(log, clock, randomIds);
    const proofs = new SecondFactorProofs(aggregates, keyring, clock);
    return {
      start: new StartSecondFactorEnrollmentHandler(aggregates, keyring),
      confirm: new ConfirmSecondFactorHandler(aggregates, proofs),
      check: new CheckSecondFactorHandler(aggregates, proofs, new ReadOnlySessions({ readOnly })),
      log,
      disable: new DisableSecondFactorHandler(aggregates, proofs, new LoginThrottle(stores.readStore, clock)),
    };
  };

  it('passes a code once, even when two processes check it at the same time', async () => {
    stores = sqliteStores();
    const keyring = new Keyring([randomBytes(32)]);
    const clock = new FixedClock(T0);
    const [a, b] = [aProcess(keyring, clock), aProcess(keyring, clock)];
    const check = (p: typeof a, totp?: string, recoveryCode?: string) =>
      p.check.execute(new CheckSecondFactorCommand('acme', 'usr_1', totp, recoveryCode, context));

    expect(await check(a, '123456')).toBe('not-enrolled');
    const { secret } = await a.start.execute(new StartSecondFactorEnrollmentCommand('acme', 'usr_1', 'ana@acme.example', context));
    expect(await check(a)).toBe('not-enrolled');
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    const { recoveryCodes } = await a.confirm.execute(new ConfirmSecondFactorCommand('acme', 'usr_1', totp.generate({ timestamp: T0.getTime() }), context));

    expect(await check(b)).toBe('missing');
    clock.advance(30_000);
    const code = totp.generate({ timestamp: clock.now().getTime() });
    const outcomes = await Promise.all([check(a, code), check(b, code), check(b, code)]);
    expect(outcomes.sort()).toEqual(['passed', 'wrong', 'wrong']);
    // The step before the spent one is refused too, though it is inside the drift window.
    expect(await check(a, totp.generate({ timestamp: T0.getTime() }))).toBe('wrong');

    expect(await check(b, undefined, recoveryCodes[3])).toBe('passed');
    expect(await check(a, undefined, recoveryCodes[3])).toBe('wrong');
    expect(await check(a, undefined, 'aaaa-bbbb-cccc')).toBe('wrong');
  });

  it('refuses the 11th wrong proof for disabling within 15 minutes, even a right one, as sign-ins are', async () => {
    stores = sqliteStores();
    const keyring = new Keyring([randomBytes(32)]);
    const clock = new FixedClock(T0);
    const a = aProcess(keyring, clock);
    const { secret } = await a.start.execute(new StartSecondFactorEnrollmentCommand('acme', 'usr_1', 'ana@acme.example', context));
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    const { recoveryCodes } = await a.confirm.execute(new ConfirmSecondFactorCommand('acme', 'usr_1', totp.generate({ timestamp: T0.getTime() }), context));
    const disable = (input: { code?: string; recoveryCode?: string }) => a.disable.execute(new DisableSecondFactorCommand('acme', 'usr_1', input, context));

    for (let i = 0; i < 10; i++) await expect(disable({ code: String(100000 + i) })).rejects.toMatchObject({ kind: 'invalid-user-input' });
    await expect(disable({ recoveryCode: recoveryCodes[0]! })).rejects.toMatchObject({ kind: 'rate-limited' });
    clock.advance(15 * 60_000 + 1000);
    await disable({ recoveryCode: recoveryCodes[0]! });
    expect(await a.check.execute(new CheckSecondFactorCommand('acme', 'usr_1', undefined, undefined, context))).toBe('not-enrolled');
  });

  it('on a read-only server (a replayed log), spends a code in memory: it passes once, and the log takes nothing', async () => {
    stores = sqliteStores();
    const keyring = new Keyring([randomBytes(32)]);
    const clock = new FixedClock(T0);
    const live = aProcess(keyring, clock);
    const { secret } = await live.start.execute(new StartSecondFactorEnrollmentCommand('acme', 'usr_1', 'ana@acme.example', context));
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    const { recoveryCodes } = await live.confirm.execute(new ConfirmSecondFactorCommand('acme', 'usr_1', totp.generate({ timestamp: T0.getTime() }), context));
    const replayed = aProcess(keyring, clock, true);
    const head = await replayed.log.headPosition();
    const check = (totpCode?: string, recoveryCode?: string) =>
      replayed.check.execute(new CheckSecondFactorCommand('acme', 'usr_1', totpCode, recoveryCode, context));

    clock.advance(30_000);
    const code = totp.generate({ timestamp: clock.now().getTime() });
    expect(await check(code)).toBe('passed');
    expect(await check(code)).toBe('wrong');
    expect(await check(undefined, recoveryCodes[0])).toBe('passed');
    expect(await check(undefined, recoveryCodes[0])).toBe('wrong');
    expect(await replayed.log.headPosition()).toBe(head);
  });
});
