import { createHash, createHmac, randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: the session cookie and the CSRF token. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** 256 random bits need no slow hash; only this digest is recorded or looked up. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The session's CSRF token, derived from its cookie token: a page reloaded later gets it again
 * from `GET /me` (which receives the cookie) although only hashes of both are recorded, and a
 * cross-site page, which cannot read the cookie, cannot compute it.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('warden-console-csrf').digest('base64url');
}
