import { createHash, randomBytes, randomUUID } from 'node:crypto';

export interface IdGenerator {
  /** A fresh random UUID. */
  uuid(): string;
  /** `bytes` random bytes, base64url encoded. */
  token(bytes: number): string;
}

export const randomIds: IdGenerator = {
  uuid: () => randomUUID(),
  token: (bytes) => randomBytes(bytes).toString('base64url'),
};

/**
 * A UUID (version 8 layout) derived from its parts, so that a reactor re-run after a crash
 * produces the very same ids (DESIGN.md section 3) and the store's idempotency catches them.
 */
export function deterministicId(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${p.length}:${p}`);
  const b = h.digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const x = b.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
