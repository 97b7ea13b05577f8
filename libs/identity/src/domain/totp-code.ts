import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { RECOVERY_CODE_COUNT } from './second-factor.decider.js';

/** RFC 6238 as authenticator apps implement it: HMAC-SHA-1, 6 digits, 30-second steps. */
const TOTP_PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** One step either side: a phone clock a little ahead or behind still signs in. */
const DRIFT_WINDOW = 1;

/** A new secret of 160 bits (RFC 4226's recommended length), base32 as apps expect it. */
export function generateTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app reads from a QR code. */
export function totpUri(secretBase32: string, issuer: string, accountName: string): string {
  return new TOTP({ ...TOTP_PARAMS, issuer, label: accountName, secret: Secret.fromBase32(secretBase32) }).toString();
}

/**
 * The time step a code belongs to, within the drift window around `now`, or null when it matches
 * none. The caller decides whether that step may still be spent (replay).
 */
export function totpStep(secretBase32: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = new TOTP({ ...TOTP_PARAMS, secret: Secret.fromBase32(secretBase32) });
  const timestamp = now.getTime();
  const delta = totp.validate({ token: code, timestamp, window: DRIFT_WINDOW });
  return delta === null ? null : totp.counter({ timestamp }) + delta;
}

// No 0/O, 1/I/L: recovery codes are typed from paper.
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten codes of 12 characters (about 59 bits each), shown once as xxxx-xxxx-xxxx. */
export function generateRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 12 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
  });
}

/**
 * What is stored of a recovery code. The codes are random (not chosen by people), so a fast hash
 * cannot be reversed by guessing; salting with the enrollment id makes each user's hashes unique.
 * Case, spaces and dashes are forgiven, as people retype them.
 */
export function hashRecoveryCode(enrollmentId: string, code: string): string {
  const normalized = code.toLowerCase().replace(/[\s-]/g, '');
  return createHash('sha256').update(`${enrollmentId}:${normalized}`, 'utf8').digest('hex');
}
