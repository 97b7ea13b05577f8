import { describe, expect, it } from 'vitest';
import { hashPassword } from './domain/password-hasher.js';
import { PasswordHashing } from './password-hashing.js';

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
});
