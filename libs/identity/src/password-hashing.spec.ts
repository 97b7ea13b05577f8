import { describe, expect, it } from 'vitest';
import { hashPassword } from './domain/password-hasher.js';
import { HASHES_AT_ONCE, PasswordChecksBusyError, PasswordHashing, SIGN_INS_WAITING } from './password-hashing.js';

describe('PasswordHashing at a configured cost', () => {
  it('hashes at the configured cost, verifies hashes made at any cost, and asks to replace only weaker ones', async () => {
    const hashing = new PasswordHashing({ passwordHashCost: 11 });
    const hash = await hashing.hash('correct horse battery');
    expect(hash).toMatch(/^\$scrypt\$ln=11,r=8,p=3\$/);
    expect(await hashing.verify('correct horse battery', hash)).toBe(true);
    expect(await hashing.verify('wrong horse battery', hash)).toBe(false);
    expect(hashing.needsRehash(hash)).toBe(false);

    const weaker = await hashPassword('correct horse battery', { ln: 10, r: 8, p: 3 });
    const stronger = await hashPassword('correct horse battery', { ln: 12, r: 8, p: 3 });
    expect(await hashing.verify('correct horse battery', weaker)).toBe(true);
    expect(await hashing.verify('correct horse battery', stronger)).toBe(true);
    expect(hashing.needsRehash(weaker)).toBe(true);
    expect(hashing.needsRehash(stronger)).toBe(false);
    expect(await hashing.verifyAgainstDummy('correct horse battery')).toBe(false);
  });

  it('computes at most HASHES_AT_ONCE hashes at once, refuses a check past SIGN_INS_WAITING waiting, and lets a new password wait', async () => {
    const hashing = new PasswordHashing({ passwordHashCost: 10 });
    const stored = await hashing.hash('correct horse battery');
    let most = 0;
    const watched = <T>(promise: Promise<T>) => {
      most = Math.max(most, hashing.inProgress);
      return promise.finally(() => (most = Math.max(most, hashing.inProgress)));
    };
    const checks = Array.from({ length: HASHES_AT_ONCE + SIGN_INS_WAITING + 3 }, (_, i) =>
      watched(i % 2 ? hashing.verify('wrong horse battery', stored) : hashing.verifyAgainstDummy('wrong horse battery')),
    );
    // A new password (an invitation accepted) waits behind them rather than being refused.
    const created = watched(hashing.hash('a brand new password'));
    const settled = await Promise.allSettled(checks);
    expect(settled.filter((r) => r.status === 'fulfilled').map((r) => r.value)).toEqual(Array(HASHES_AT_ONCE + SIGN_INS_WAITING).fill(false));
    const refused = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(refused).toHaveLength(3);
    for (const reason of refused) expect(reason).toBeInstanceOf(PasswordChecksBusyError);
    expect(await hashing.verify('a brand new password', await created)).toBe(true);
    expect(most).toBe(HASHES_AT_ONCE);
    expect(hashing.inProgress).toBe(0);
  });

  it('counts only sign-ins against SIGN_INS_WAITING: new passwords waiting take none of their places', async () => {
    const hashing = new PasswordHashing({ passwordHashCost: 10 });
    // Three new passwords first: two computed, one waiting.
    const created = Array.from({ length: 3 }, (_, i) => hashing.hash(`new password ${i}`));
    const checks = Array.from({ length: SIGN_INS_WAITING + 2 }, () => hashing.verifyAgainstDummy('a guess'));
    const settled = await Promise.allSettled(checks);
    expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(SIGN_INS_WAITING);
    expect(settled.filter((r) => r.status === 'rejected')).toHaveLength(2);
    expect(await Promise.all(created)).toHaveLength(3);
  });

  it('hands freed places to sign-ins and new passwords in turn: a burst of new passwords holds a sign-in back by one of them', async () => {
    const hashing = new PasswordHashing({ passwordHashCost: 10 });
    const order: string[] = [];
    const created = Array.from({ length: 10 }, (_, i) => hashing.hash(`new password ${i}`).then(() => order.push(`new ${i}`)));
    const checked = hashing.verifyAgainstDummy('a guess').then(() => order.push('sign-in'));
    await Promise.all([...created, checked]);
    // Two were hashing when the sign-in came; it goes at the first freed place but one.
    expect(order.indexOf('sign-in')).toBeLessThanOrEqual(HASHES_AT_ONCE + 1);
    expect(order.filter((o) => o.startsWith('new'))).toHaveLength(10);
    expect(hashing.inProgress).toBe(0);
  });
});
