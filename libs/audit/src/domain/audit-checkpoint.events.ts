import type { DomainEvent } from '#warden/kernel';

/**
 * A signed statement of an organization's chain head: its seq-th event, at `position`, has link
 * `link`. `signature` is Ed25519 (base64url) by the organization's signing key `kid` over
 * checkpointMessage (audit-chain.ts); the public key is in its JWKS (GET /api/v1/signing_keys).
 * `chain` names the link format; checkpoints recorded before v2 have none (v1 links, signed over
 * checkpointMessageV1).
 */
export type AuditChainCheckpointed = DomainEvent<
  'AuditChainCheckpointed',
  { seq: number; position: number; link: string; kid: string; signature: string; signedAt: string; chain?: string }
>;

export type AuditCheckpointEvent = AuditChainCheckpointed;
