import { createHash } from 'node:crypto';
import { canonicalJsonDigest } from '#warden/kernel';
import type { AuditHead } from './audit-export.format.js';

/**
 * The bytes an organization's key signs for a head: its format, then the digest of its canonical
 * JSON without `kid` and `signature` (the kid only picks the key that must verify it).
 */
export function headMessage(head: Omit<AuditHead, 'kid' | 'signature'> & { kid?: string; signature?: string }): Buffer {
  const { kid: _kid, signature: _signature, ...signed } = head;
  return Buffer.from(`${head.format}\n${canonicalJsonDigest(signed)}`, 'utf8');
}

/** RFC 7638 thumbprint of an Ed25519 public key: what a Warden key's `kid` must be. */
export function okpThumbprint(x: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url');
}
