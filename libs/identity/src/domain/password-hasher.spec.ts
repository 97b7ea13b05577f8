import { describe, expect, it } from 'vitest';
import { hashPassword, needsRehash, verifyAgainstDummy, verifyPassword } from './password-hasher.js';

const LOW = { ln: 10, r: 8, p: 1 };

describe('password hasher', () => {
  it('records its parameters and a per-hash salt, and verifies with the recorded parameters', async () => {
    const a = await hashPassword('correct horse battery', LOW);
    const b = await hashPassword('correct horse battery', LOW);
    expect(a).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(needsRehash(a)).toBe(true);
  });

  it('hashes with the current parameters by default', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^\$scrypt\$ln=15,r=8,p=3\$/);
    expect(needsRehash(hash)).toBe(false);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
  });

  it('refuses malformed or absurd stored hashes instead of computing them', async () => {
    expect(await verifyPassword('x', 'plain')).toBe(false);
    expect(await verifyPassword('x', '$scrypt$ln=30,r=8,p=1$AAAA$AAAA')).toBe(false);
    expect(await verifyAgainstDummy('anything at all')).toBe(false);
  });
});
