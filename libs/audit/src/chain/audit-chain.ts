import { hash } from 'node:crypto';
import { canonicalJsonDigest, type RecordedEvent } from '#warden/kernel';

/**
 * The audit chain (docs/audit.md): each organization's events, in log order, linked by hashes.
 * Everything here is pure, and exactly what `warden audit verify` and an auditor's own verifier
 * recompute, so it must never change for a format version.
 */
export const AUDIT_CHAIN_FORMAT = 'warden-audit-chain/v1';

const sha256 = (text: string) => hash('sha256', text, 'base64url');

/** The link before an organization's first event. */
export function genesisLink(orgId: string): string {
  return sha256(`${AUDIT_CHAIN_FORMAT}\n${orgId}`);
}

/**
 * What of an event is chained: the event exactly as stored, personal fields still sealed, so
 * forgetting a data key (GDPR deletion) leaves every link intact. The log position is left out:
 * it belongs to the store, not to the event, and the chain itself records the order.
 */
export interface StoredForm {
  readonly id: string;
  readonly stream: string;
  readonly revision: number;
  readonly type: string;
  readonly data: object;
  readonly metadata: object;
}

export function storedForm(event: RecordedEvent): StoredForm {
  return { id: event.id, stream: event.streamName, revision: event.revision, type: event.type, data: event.data, metadata: event.metadata };
}

/** SHA-256 (base64url) of the stored form's canonical JSON (sorted keys, no whitespace). */
export function contentDigest(stored: StoredForm): string {
  return canonicalJsonDigest(stored);
}

/** link(n) = SHA-256(link(n-1) + "\n" + digest(n)), base64url. */
export function nextLink(previous: string, digest: string): string {
  return sha256(`${previous}\n${digest}`);
}

/** A chain head: the organization's seq-th event, at a log position, and its link. */
export interface ChainHead {
  readonly seq: number;
  readonly position: number;
  readonly link: string;
}

/** The bytes an organization's key signs for a checkpoint of its chain head. */
export function checkpointMessage(orgId: string, head: ChainHead): Buffer {
  return Buffer.from(`warden-audit-checkpoint/v1\n${orgId}\n${head.seq}\n${head.position}\n${head.link}`, 'utf8');
}
