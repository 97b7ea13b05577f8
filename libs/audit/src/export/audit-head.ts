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

/**
 * The running SHA-256 of an export's lines before its head, each line's UTF-8 bytes with the newline
 * that ends it: the head's `linesDigest`. The exporter adds each line as it writes it and verify each
 * line as it reads it, so neither holds the file whole; verify adds a blank line too, which the
 * exporter never writes, so that every byte before the head counts.
 */
export class LinesDigest {
  private readonly hash = createHash('sha256');

  add(line: string): void {
    this.hash.update(line, 'utf8');
    this.hash.update('\n');
  }

  /** The digest, base64url like the format's other digests. Once: the hash is finished. */
  digest(): string {
    return this.hash.digest('base64url');
  }
}

/** RFC 7638 thumbprint of an Ed25519 public key: what a Warden key's `kid` must be. */
export function okpThumbprint(x: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url');
}
