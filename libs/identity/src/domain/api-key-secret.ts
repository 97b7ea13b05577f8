import { hash, randomBytes } from 'node:crypto';

const PREFIX = 'wdn_';

/** A new key: 32 random bytes, recognisable by its prefix (secret scanners can match it). */
export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), prefix: key.slice(0, PREFIX.length + 6) };
}

/**
 * 256 random bits need no slow hash: SHA-256 cannot be brute-forced back to the key. Hashed on
 * every customer request: the one-shot `hash` costs a third of a Hash object's create, update and digest.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}
