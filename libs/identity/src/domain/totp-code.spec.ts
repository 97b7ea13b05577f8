import { Secret } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { generateRecoveryCodes, generateTotpSecret, hashRecoveryCode, totpStep, totpUri } from './totp-code.js';

// RFC 6238 appendix B, SHA-1 seed; 6-digit codes are the last six digits of its 8-digit values.
const RFC_SECRET = Secret.fromLatin1('12345678901234567890').base32;

describe('TOTP codes', () => {
  it('matches the RFC 6238 test vectors and names the time step', () => {
    expect(totpStep(RFC_SECRET, '287082', new Date(59_000))).toBe(1);
    expect(totpStep(RFC_SECRET, '081804', new Date(1_111_111_109_000))).toBe(Math.floor(1_111_111_109 / 30));
    expect(totpStep(RFC_SECRET, '005924', new Date(1_234_567_890_000))).toBe(Math.floor(1_234_567_890 / 30));
  });

  it('accepts one step of clock drift either way, not two', () => {
    const step = Math.floor(1_111_111_109 / 30);
    expect(totpStep(RFC_SECRET, '081804', new Date((step + 1) * 30_000))).toBe(step);
    expect(totpStep(RFC_SECRET, '081804', new Date((step - 1) * 30_000))).toBe(step);
    expect(totpStep(RFC_SECRET, '081804', new Date((step + 2) * 30_000))).toBeNull();
  });

  it('refuses what is not a 6-digit code of this secret', () => {
    expect(totpStep(RFC_SECRET, '287083', new Date(59_000))).toBeNull();
    expect(totpStep(RFC_SECRET, '28708', new Date(59_000))).toBeNull();
    expect(totpStep(generateTotpSecret(), '287082', new Date(59_000))).toBeNull();
  });

  it('makes an otpauth URI authenticator apps read', () => {
    const uri = totpUri(RFC_SECRET, 'Warden', 'ana@acme.example');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Warden:ana%40acme\.example\?/);
    expect(uri).toContain(`secret=${RFC_SECRET}`);
    expect(uri).toContain('digits=6');
    expect(uri).toContain('period=30');
  });

  it('issues ten distinct recovery codes whose hashes forgive case and dashes but depend on the enrollment', () => {
    const codes = generateRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    const code = codes[0]!;
    expect(hashRecoveryCode('e1', code.toUpperCase().replace(/-/g, ' '))).toBe(hashRecoveryCode('e1', code));
    expect(hashRecoveryCode('e2', code)).not.toBe(hashRecoveryCode('e1', code));
  });
});
