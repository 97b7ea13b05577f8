import { hash, randomBytes, randomUUIDv7 } from 'node:crypto';

export interface IdGenerator {
  /**
   * A fresh UUID, time-ordered (version 7: a millisecond timestamp, then 74 random bits). Event
   * ids are indexed by the log: ids that sort by time are inserted at the end of the index, so a
   * commit writes a few index pages instead of one random page per event.
   */
  uuid(): string;
  /** `bytes` random bytes, base64url encoded. */
  token(bytes: number): string;
}

export const randomIds: IdGenerator = {
  uuid: () => randomUUIDv7(),
  token: (bytes) => randomBytes(bytes).toString('base64url'),
};

const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomPoolOffset = 0;

/**
 * Cryptographically random bytes for small, frequent needs (an IV per sealed event, a key per
 * new subject), drawn from a pool the CSPRNG refills 4 KiB at a time: a call into OpenSSL per IV
 * cost several microseconds. Every byte is handed out once, in a copy of its own.
 */
export function pooledRandomBytes(size: number): Buffer {
  if (size > RANDOM_POOL_BYTES / 8) return randomBytes(size);
  if (randomPoolOffset + size > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    randomPoolOffset = 0;
  }
  const bytes = Buffer.from(randomPool.subarray(randomPoolOffset, randomPoolOffset + size));
  randomPoolOffset += size;
  return bytes;
}

/**
 * A UUID (version 8 layout) derived from its parts, so that a reactor re-run after a crash
 * produces the very same ids (docs/architecture.md, "Write side") and the store's idempotency catches them.
 */
export function deterministicId(...parts: string[]): string {
  // One-shot hash of the joined parts: the same digest as updating part by part, at half the cost.
  const b = hash('sha256', parts.map((p) => `${p.length}:${p}`).join(''), 'buffer').subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const x = b.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** An organization id: lower-case letters, digits, `-` and `_` (it appears in URLs, stream names and logs). */
export const ORG_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
